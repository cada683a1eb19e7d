"""The code-generation kit both generating pillars share: request binding and configuration.

``fw generate`` reads dataclasses once and writes plain Python. What every generator needs to do
that (read a class's source for field lines and doc comments, name modules and types, fingerprint
declarations, head the generated files, report errors at file:line naming the dataclass and the
field) lives here once. It is a low layer: it imports neither pillar, and the runtime parts
(:mod:`fw.codegen.naming`, :mod:`fw.codegen.fingerprint`) import nothing heavier than ``hashlib``.
"""
