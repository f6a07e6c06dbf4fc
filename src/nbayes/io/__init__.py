"""Files in and out: :func:`nbayes.load` and its registry of model kinds (:mod:`nbayes.io.load`),
the model-file codec (:mod:`nbayes.io.model_file`), a model file's description
(:mod:`nbayes.io.info`) and readers of JSON Lines, CSV / TSV / Parquet columns and class folders
(:mod:`nbayes.io.readers`)."""
