"""Naming conventions the model leans on, as data: one table, one word matcher.

Code says some things only by its names: ``best_state`` is kept as a snapshot, ``train_epoch``
trains a model, ``val_loss`` is a loss, ``normalize_`` writes its argument in place. Every such
convention is a table of phrases here, and every name is matched one way: split into lowercase
words (snake_case and camelCase), a phrase matches where its words appear in a row. So
``prevent`` is the one word ``prevent``, never ``prev``. Users extend the tables from
``[tool.tensorcopy]`` or flake8 options (``extend-snapshot-names = ["ckpt"]``).

Imported by the scan too: only ``re`` and ``fnmatch``, no LibCST.
"""

import fnmatch
import re
from functools import lru_cache
from typing import Dict, Iterable, Mapping, Optional, Tuple

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")

Phrase = Tuple[str, ...]


@lru_cache(maxsize=4096)
def words(name: str) -> Phrase:
    """``val_loss`` -> (val, loss); ``CrossEntropyLoss`` -> (cross, entropy, loss); digits drop."""
    return tuple(word.lower() for word in _WORD.findall(name))


def _phrases(entries: Iterable[str]) -> Tuple[Phrase, ...]:
    return tuple(dict.fromkeys(words(entry) for entry in entries if words(entry)))


def _has_phrase(name_words: Phrase, phrases: Tuple[Phrase, ...]) -> bool:
    """Whether one phrase's words occur in a row in ``name_words`` (a last word may be plural)."""
    for phrase in phrases:
        size = len(phrase)
        for start in range(len(name_words) - size + 1):
            window = name_words[start:start + size]
            last = window[-1]
            if window[:-1] == phrase[:-1] and last in (phrase[-1], phrase[-1] + "s", phrase[-1] + "es"):
                return True
    return False


@lru_cache(maxsize=16384)
def _matches(conventions: "Conventions", table: str, name_words: Phrase) -> bool:
    """``_has_phrase`` against one table of ``conventions``, remembered (the model asks about
    the same few names on every statement)."""
    return _has_phrase(name_words, getattr(conventions, table))


class Conventions:
    """The tables in force. Each entry has a flagged and a clean case in tests/test_conventions.py,
    and a flagged and a clean line in fixtures/ (a test checks both)."""

    # A name that says it keeps an earlier value: an alias kept under it is observed by intent.
    SNAPSHOT_NAMES = ("orig", "original", "old", "prev", "previous", "init", "initial", "best", "backup",
                      "copy", "saved", "snapshot")
    # A call that trains the model it is given: it writes its parameters (state_dict snapshots follow).
    TRAINING_CALLS = ("train", "training", "fit")
    # A value or call that is a loss: kept across iterations it keeps its graph alive.
    LOSS_NAMES = ("loss",)
    # A function whose name or parameter says it writes its arguments in place; a trailing
    # ``_`` (PyTorch's own suffix for in-place methods) says so too.
    INPLACE_NAMES = ("inplace", "in_place")
    # torch.nn layers without parameters (globs on the class name): their output requires
    # grad only when their input does.
    PARAMETER_FREE_LAYERS = (
        "*Pad?d", "*Pool?d", "*Dropout*", "Flatten", "Unflatten", "Identity", "Softmax*", "Softmin",
        "LogSoftmax", "Upsample*", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Fold", "Unfold",
        "*ReLU", "*ReLU?", "*ELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh", "Hardtanh", "Hardswish",
        "Hardsigmoid", "Softplus", "Softsign", "Tanhshrink", "Threshold", "LogSigmoid", "Hardshrink",
        "Softshrink", "GLU", "CosineSimilarity", "PairwiseDistance", "*Loss",
    )

    # An object holding configuration: a value read out of it (``self.config.latents_mean``,
    # ``cfg.lr``) is a Python value, so a caller passing one disputes a tensor annotation.
    CONFIG_NAMES = ("config", "cfg", "hparams")

    # ``[tool.tensorcopy]`` keys (and flake8 options, with ``--`` and ``_`` for ``-``) -> table.
    KEYS = {
        "extend-snapshot-names": "SNAPSHOT_NAMES",
        "extend-training-calls": "TRAINING_CALLS",
        "extend-loss-names": "LOSS_NAMES",
        "extend-inplace-names": "INPLACE_NAMES",
        "extend-parameter-free-layers": "PARAMETER_FREE_LAYERS",
        "extend-config-names": "CONFIG_NAMES",
    }

    def __init__(self, extensions: Optional[Mapping[str, Iterable[str]]] = None):
        extensions = extensions or {}
        tables: Dict[str, tuple] = {}
        for key, table in self.KEYS.items():
            tables[table] = tuple(getattr(self, table)) + tuple(extensions.get(key, ()))
        self.snapshot = _phrases(tables["SNAPSHOT_NAMES"])
        self.training = _phrases(tables["TRAINING_CALLS"])
        self.loss = _phrases(tables["LOSS_NAMES"])
        self.inplace = _phrases(tables["INPLACE_NAMES"])
        self.parameter_free = tables["PARAMETER_FREE_LAYERS"]
        self.config = _phrases(tables["CONFIG_NAMES"])


_active = Conventions()


def configure(config: Mapping[str, object]) -> None:
    """Put the defaults plus the ``extend-*`` keys of ``config`` in force; other keys are
    ignored. Raises ValueError for a value that is not a string or a list of strings."""
    global _active
    extensions = {}
    for key in Conventions.KEYS:
        value = config.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"[tool.tensorcopy] {key} must be a list of names")
        extensions[key] = value
    _active = Conventions(extensions)


def snapshot_named(key: str) -> bool:
    """``best_state``, ``w_prev``, ``self.origX``: a name that says it keeps an earlier value."""
    return _matches(_active, "snapshot", words(key.rsplit(".", 1)[-1]))


def training_call(name: str) -> bool:
    """``train_one_epoch``, ``trainer.fit``, ``fit_model`` (not ``from_pretrained``)."""
    return _matches(_active, "training", words(name))


def loss_named(name: str) -> bool:
    """``val_loss``, ``losses``, ``F.mse_loss``, ``CrossEntropyLoss`` (not ``lossless``)."""
    return _matches(_active, "loss", words(name))


def any_loss_named(names: Iterable[str]) -> bool:
    """Whether one of ``names`` is spelled as a loss (for the scan: a name that cannot hold a
    phrase's last word in its letters is not split into words)."""
    stems = {phrase[-1] for phrase in _active.loss}
    return any(loss_named(name) for name in names if any(stem in name.lower() for stem in stems))


def inplace_named(name: str) -> bool:
    """``normalize_``, ``inplace_relu``, ``in_place_fill``: a function that writes its arguments
    on purpose. The phrase opens the name (``relu_inplace_on_view`` only describes one)."""
    if name.endswith("_") and not name.endswith("__"):
        return True
    name_words = words(name)
    return any(name_words[:len(phrase)] == phrase for phrase in _active.inplace)


def inplace_parameter(name: str) -> bool:
    """A parameter ``inplace`` / ``in_place``: its function writes its arguments when asked."""
    return words(name) in _active.inplace


def parameter_free_layer(qualname: str) -> bool:
    """``torch.nn.ZeroPad2d``, ``torch.nn.ReLU``: a layer class that holds no parameters."""
    return _parameter_free(_active, qualname.rsplit(".", 1)[-1])


@lru_cache(maxsize=4096)
def _parameter_free(conventions: "Conventions", class_name: str) -> bool:
    return any(fnmatch.fnmatchcase(class_name, pattern) for pattern in conventions.parameter_free)


def config_named(name: str) -> bool:
    """``config``, ``vae_config``, ``cfg``, ``hparams``: an object that holds configuration."""
    return _matches(_active, "config", words(name))
