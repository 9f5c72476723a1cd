"""One module per subcommand. Each has ``register(subparsers)``; heavy imports stay inside the
command functions so that ``pictable --help`` answers at once."""
