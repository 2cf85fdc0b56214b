"""The revm backend (pyrevm), imported only when asked for: backend, its mirror of the state, its journal reader, the
py-evm shadow that explains a failed call, and the sight (tracer, frames, ops) that sees a call's path."""
