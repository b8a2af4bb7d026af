"""docs/coverage.md: the summary, Core ATen, tests, autocast, out=, per family."""
