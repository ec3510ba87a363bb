"""Wire contracts: generated protobuf messages (memhive.v1), subjects, streams, codec, mapping."""
