"""The trio side of photofinish: the command line, and (as it lands) the gateway, lobby, arbiter and log."""
