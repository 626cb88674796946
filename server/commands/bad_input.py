"""``BadInput``: what a person gave a server-side command cannot be used; said in one line, exit 2."""


class BadInput(Exception):
    """A file that is not there or is not a log, a seat the table lacks, an address the server cannot listen
    on: the message says which in one line. Nothing was started or changed."""
