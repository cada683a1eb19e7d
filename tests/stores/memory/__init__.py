"""``memory``: a store engine registered from outside fw (:mod:`stores.memory.store`), with the
loader of its ``[memory]`` table generated into this directory's ``_fw_config.py``."""
