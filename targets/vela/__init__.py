"""Arm's Vela on our TOSA models, for the Ethos-U NPUs: the compile and its report
(``compile``), and the compile step an Ethos-U target names (``step``)."""
