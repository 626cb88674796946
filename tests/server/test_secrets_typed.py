"""A secret the server hands out can be pasted after a command-line flag: it never starts with ``-``."""

import server.secrets_typed as typed


def test_a_secret_that_would_start_with_a_dash_starts_with_an_underscore_instead(monkeypatch):
    monkeypatch.setattr(typed.secrets, "token_urlsafe", lambda n: "-" + "A" * (n - 1))
    assert typed.new_secret(18) == "_" + "A" * 17


def test_secrets_keep_their_length_and_alphabet():
    for _ in range(2000):  # about 31 of these would have started with "-"
        token = typed.new_secret(18)
        assert len(token) == 24 and not token.startswith("-")
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
