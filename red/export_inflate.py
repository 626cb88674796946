"""An export charged as 0 bytes that the replay worker inflated to 16 MiB before refusing it: a 16 MiB gzip member
of spaces followed by an empty second member (its trailer, the last four bytes, is what the charge reads).
Usage: export_inflate.py  (in-process: prints the charge and the time unpack takes)."""
import base64, gzip, sys, time
sys.path.insert(0, "/tmp/red11")
from server.logs.exported import MOST_BYTES, ExportError, unpack, unpacked_size
from server.logs.frames import LOG_UNIT

big = gzip.compress(b" " * MOST_BYTES)
packed = base64.b64encode(big + gzip.compress(b"")).decode()
print(f"message {len(packed)} bytes, charged {unpacked_size(packed) // LOG_UNIT} extra units "
      f"(a 16 MiB export: {MOST_BYTES // LOG_UNIT})")
start = time.perf_counter()
try:
    unpack(packed)
except ExportError as error:
    print("refused:", error)
print(f"unpack took {(time.perf_counter() - start) * 1000:.1f} ms")
