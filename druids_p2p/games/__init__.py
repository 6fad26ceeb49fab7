"""Rule sets other than Druids (2017), each a pure engine in its own package.

Every package here imports only the standard library (and generic parts of ``druids_p2p.engine``);
it reaches the rest of the project through the registry in ``druids_p2p.rulesets``.
"""
