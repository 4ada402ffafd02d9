"""`python -m tests.bench [--quick] [--only NAME...]`: run every benchmark and print the table."""

from tests.bench.run import main

raise SystemExit(main())
