"""Gaussian class-conditional classifier with full covariance matrices (notes 001).

The generative model of the week-8 notes (seed 001, "Gaussian naive Bayes ... x | y = c ~
Normal(mu_c, Sigma_c)") without the naive assumption: each class is a multivariate Normal with a
full covariance matrix, either one per class (quadratic boundary, scikit-learn's
``QuadraticDiscriminantAnalysis``) or one shared, pooled matrix (linear boundary, scikit-learn's
``LinearDiscriminantAnalysis(solver="lsqr")``). Prediction is Bayes' rule (seed 002, eq. 2),
computed in log space.
"""

from .model import GaussianBayes

__all__ = ["GaussianBayes"]
