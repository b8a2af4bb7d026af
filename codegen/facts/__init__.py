"""Facts about the installed torch: its schemas (native_functions.yaml), the
wheel's DispatchStubs, CUDA's autocast lists, the OpInfo database, dtype names.
Read-only; nothing here knows about ops.yaml."""
