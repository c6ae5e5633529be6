"""``python -m colour_collector``: the ``colour-collector`` command, where its script is not on
the ``PATH``."""

from colour_collector.cli.app import main

main()
