"""Everything that plays against the server or the rules: bots, the offline match runner, the client library."""
