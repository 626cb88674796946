"""The trio side of photofinish: the lobby, the tables, the gateway, the logs; `commands/` is its entry point,
what the `photofinish` command line (`clients/cli/`) runs on this side."""
