"""Discriminative linear classifiers: logistic regression (chapter 002 section 3)."""

from .logistic import LogisticRegression

__all__ = ["LogisticRegression"]
