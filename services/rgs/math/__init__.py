"""Game math: exact composition-dependent analysis, PAR sheets, strategy and Cash Out tables.

* :func:`rgs.math.analysis.analyse_main` analyses the main game of any :class:`RuleSet`;
* :func:`rgs.math.report.analyse_variant` adds the outcome distribution, side bets, Cash Out
  design and strategy (``rgs par V`` writes them as a PAR sheet);
* :func:`rgs.math.strategy_tables.load_strategy` hands each variant's strategy to the simulator.

Every failure of this package is a :class:`rgs.math.errors.MathError`.
"""
