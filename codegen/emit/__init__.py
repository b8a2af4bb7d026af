"""C++ from the model: registrations, wrappers, per-entry declarations, stub
kernel declarations, autocast and custom-op glue; and the CMake build."""
