"""Text classification: a compiled tokeniser and counter, and TextClassifier."""

from .classifier import TextClassifier, TokenExplanation

__all__ = ["TextClassifier", "TokenExplanation"]
