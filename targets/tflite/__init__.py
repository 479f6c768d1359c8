"""TFLite int8 flatbuffers, the format LiteRT, TensorFlow Lite Micro and Vela's TFLite path
take: every graph tensor an int8 NHWC tensor holding its values (scale 1, zero point 0), each
convolution's operands chosen so that every TFLite kernel path's integer requantisation is
the spec's ``half_up`` (:mod:`.lower.conv`)."""
