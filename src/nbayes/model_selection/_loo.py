"""Leave-one-out in closed form (placeholder until the closed forms land): None = generic."""


def loo_folds(model, X, y, splits, sample_weight):
    return None
