"""What the capabilities of §13 do before and after their graphs run, as pure functions on
graphs and payloads: the lowerings of the registered forms to WHG1 (``int_synth``,
``jpegai``, ``lower``), the ``wai.image.jpegai`` entropy path (``jpegai_entropy``), and the
example sets (``examples``). Nothing here runs an engine or validates one: the command line
wires an engine into a decode."""
