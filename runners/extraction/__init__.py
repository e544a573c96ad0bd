"""Answer extraction, one module per answer shape; the entry point is :func:`runners.extract.extract`."""
