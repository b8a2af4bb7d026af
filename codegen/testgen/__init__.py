"""Tests from the model: OpInfo checks per entry, ModuleInfo, out= contract,
type promotion and custom-op tests; the runner that records their outcomes."""
