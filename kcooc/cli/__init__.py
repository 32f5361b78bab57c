"""The command line: the ``kcooc`` click group (group.py), the option vocabulary every command speaks
(options.py) and what every run shares (runtime.py: errors and exit codes, logging, progress, the
summary). Each method's ``commands.py`` parses its options into a config and hands it to the method."""

from .group import COMMANDS, cli, main

__all__ = ["COMMANDS", "cli", "main"]
