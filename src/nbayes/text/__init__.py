"""Text classification: a compiled tokeniser and counter, and TextClassifier."""

from .classifier import TextClassifier, TokenExplanation
from .vectorizer import Vectorizer

__all__ = ["TextClassifier", "TokenExplanation", "Vectorizer"]
