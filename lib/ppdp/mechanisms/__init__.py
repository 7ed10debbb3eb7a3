"""Privacy mechanisms, one module per family, each with sklearn-like habits.

Constructors take hyper-parameters only, ``fit`` learns and returns ``self``, learned state ends in
``_``, and every random draw takes an explicit :class:`numpy.random.Generator`.
"""
