"""The commands of `samedeal`: one module per command group, each with `add_parser(sub)`
(its subcommands, each naming its `run`) and `run(args, out)`; registry.py gathers them,
common.py holds what they share."""
