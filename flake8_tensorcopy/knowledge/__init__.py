"""What the model knows about torch and Python, as data: the generated torch tables (loaded by
``flake8_tensorcopy.data``, reused here, never copied) one hand-kept table (``table``) and the naming conventions
(``conventions``: what code says only by its names, which users extend from their configuration).

The model's transfer function reads nothing else; a new fact about an API is a new entry here
with its fixture line, never a condition in the solver.
"""

from flake8_tensorcopy.data import (  # noqa: F401  (re-exported: the one door to the tables)
    ATTRIBUTES_RETURNING_TENSOR,
    FUNCTIONS_RETURNING_TENSOR,
    FUNCTIONS_RETURNING_TENSOR_SEQUENCE,
    INPLACE_METHODS,
    LAYERS_KEEPING_NO_PARAMETERS,
    LAYERS_TAKING_INPLACE,
    LAYERS_UPDATING_RUNNING_STATS,
    METHODS_RETURNING_TENSOR,
    METHODS_RETURNING_TENSOR_SEQUENCE,
    METHODS_RETURNING_TENSOR_WITHOUT_ARGUMENTS,
    SAVED_FOR_BACKWARD,
    VIEW_ATTRIBUTES,
    VIEW_FUNCTIONS,
    VIEW_METHODS,
)
from flake8_tensorcopy.knowledge.table import (  # noqa: F401
    ARRAYS_OF_DATA, CAST_DTYPES, CHECKPOINT_OPTIONS, CONTAINER_GROWTH, CONTAINER_RENEWING_FRONT, CONTAINER_TAKING, DEFAULT_DTYPE,
    DEFAULT_DEVICE, DEFAULT_DEVICE_SETTERS, DEFAULT_DTYPE_FACTORIES, DEFAULT_DTYPE_SETTERS, DTYPE_ALIASES, DTYPES, FLOAT64_ARRAYS, FLOATING_DTYPES,
    FACTORIES_OF_SIZES, HAND_TABLE, INPLACE_ONLY_IN_TRAINING, RESIZES_IN_PLACE, RANGES_OF_SIZES, LEGACY_DTYPES, METADATA_INPLACE, NUMERIC_CONSTANTS, NUMPY_DTYPE_ALIASES, NUMPY_DTYPE_AT, NUMPY_FLOAT_FUNCTIONS,
    NUMPY_FLOAT_OF_INTEGERS, OVERWRITING_METHODS, PYTHON_DTYPES, RANGES_OF_NUMBERS, RESULT_DTYPE_UNLESS, RANDOM_DRAW_SIZE_AT,
    RANDOM_DRAWS_FROM, RESULT_DTYPES, RUNNING_STATISTICS, SAVED_FOR_OTHER, Entry, role_of,
)
