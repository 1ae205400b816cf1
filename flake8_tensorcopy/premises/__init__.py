"""The runtime premise harness (``tensorcopy-premises``): every rule's advice, proved on the
devices at hand. Needs torch (the ``premises`` extra); the linter itself never imports it."""
