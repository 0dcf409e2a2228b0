"""The steps of swigflow.data, one module per family, each a Dataset made by the
Dataset method of the same name (swigflow.data.dataset imports a step's module when the method
is called, as tf.data does):

- base: Unary (a step over one input), Replayed (outputs computed from a pass's elements) and
  Elements (a dataset over elements already made);
- mapping: map, filter, parse, decode_images (the Python path) and scan;
- interleaving: interleave and flat_map (datasets of datasets);
- batching: batch, padded_batch, unbatch and rebatch;
- windowing: window, group_by_window and bucket_by_sequence_length;
- shuffling: shuffle and global_shuffle;
- slicing: take, skip, shard, repeat and enumerate;
- combining: zip and concatenate;
- caching: cache, in memory or in a file;
- tuning: prefetch and with_options (how the pipeline runs, not what it yields).

Steps that keep elements across their input's positions (windows, groups, rebatched rows, a
scan's state, a Python shuffle buffer) resume by replaying the epoch from its start and dropping
what was already emitted: exact, not free. The others resume where they stopped.
"""
