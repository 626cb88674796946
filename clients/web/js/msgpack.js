// The server's msgpack frames, read (a hello with `encoding: "msgpack"`: PROTOCOL.md, "Encodings"). decode(bytes)
// gives the value JSON.parse gives for the same message sent as JSON: maps as plain objects, arrays, strings,
// numbers (integers past 2^53 rounded, as JSON.parse rounds them), true, false and null. The server sends no
// bytes nor extension types; either one, a truncated frame or bytes left after the value is an error that says
// where. The page still sends JSON (the server reads each frame by its kind: text JSON, binary msgpack).
// tests/clients/test_msgpack_js.py checks it against msgspec's encoder.

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function decode(data) {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;

  const need = (n) => {
    if (at + n > bytes.length) {
      throw new Error(`msgpack: the frame ends inside a value (byte ${at} of ${bytes.length})`);
    }
    const start = at;
    at += n;
    return start;
  };
  const string = (n) => { const start = need(n); return utf8.decode(bytes.subarray(start, start + n)); };
  const array = (n) => { const out = new Array(n); for (let i = 0; i < n; i++) out[i] = value(); return out; };
  const map = (n) => {
    const out = {};
    for (let i = 0; i < n; i++) {
      const key = value();
      if (typeof key !== "string") throw new Error(`msgpack: a map key that is no string (${typeof key})`);
      const item = value();
      if (key === "__proto__") Object.defineProperty(out, key, { value: item, enumerable: true, writable: true,
                                                                  configurable: true }); // an own key, as JSON.parse
      else out[key] = item;
    }
    return out;
  };

  function value() {
    const type = bytes[need(1)];
    if (type <= 0x7f) return type; // positive fixint
    if (type >= 0xe0) return type - 0x100; // negative fixint
    if (type >= 0xa0 && type <= 0xbf) return string(type & 0x1f);
    if (type >= 0x90 && type <= 0x9f) return array(type & 0x0f);
    if (type >= 0x80 && type <= 0x8f) return map(type & 0x0f);
    switch (type) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xca: return view.getFloat32(need(4));
      case 0xcb: return view.getFloat64(need(8));
      case 0xcc: return view.getUint8(need(1));
      case 0xcd: return view.getUint16(need(2));
      case 0xce: return view.getUint32(need(4));
      case 0xcf: return Number(view.getBigUint64(need(8)));
      case 0xd0: return view.getInt8(need(1));
      case 0xd1: return view.getInt16(need(2));
      case 0xd2: return view.getInt32(need(4));
      case 0xd3: return Number(view.getBigInt64(need(8)));
      case 0xd9: return string(view.getUint8(need(1)));
      case 0xda: return string(view.getUint16(need(2)));
      case 0xdb: return string(view.getUint32(need(4)));
      case 0xdc: return array(view.getUint16(need(2)));
      case 0xdd: return array(view.getUint32(need(4)));
      case 0xde: return map(view.getUint16(need(2)));
      case 0xdf: return map(view.getUint32(need(4)));
      default:
        throw new Error(`msgpack: byte 0x${type.toString(16)} at ${at - 1} starts nothing the server sends`);
    }
  }

  const out = value();
  if (at !== bytes.length) throw new Error(`msgpack: ${bytes.length - at} bytes left after the message`);
  return out;
}
