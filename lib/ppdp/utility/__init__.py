"""Utility of a release: what a data consumer can still do with it.

One module per kind of use: ``recommendation`` (collaborative-filtering RMSE, activity mAP),
``information_loss`` (ILoss of generalized and randomized values), ``queries`` (aggregate-query
error), ``ml_efficacy`` (train/test-on-synthetic classifier scores), ``workload`` (the
cross-mechanism benchmark's count-query workload and train-on-release task scores),
``marginals`` (total-variation distance between the real and the released 1-way and 2-way
marginals, every released column read as a distribution over its domain).
"""
