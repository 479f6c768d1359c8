"""Arm's Vela on our TOSA models, for the Ethos-U NPUs: the compile (``compile``) and the
format an Ethos-U target's models are written in (``format``)."""
