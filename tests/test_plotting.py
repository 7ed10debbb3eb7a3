"""House style and figure saving."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from ppdp.plotting import method_style, save_figure, use_style


def _figure():
    use_style()
    fig, ax = plt.subplots()
    ax.plot([0, 1, 2], [1, 0, 2], **method_style(1))
    return fig


def test_save_figure_png_and_pdf_deterministic(tmp_path):
    fig = _figure()
    first = save_figure(fig, "demo", tmp_path / "a")
    second = save_figure(fig, "demo", tmp_path / "b")
    plt.close(fig)
    assert [p.suffix for p in first] == [".png", ".pdf"]
    for one, two in zip(first, second, strict=True):
        assert one.read_bytes() == two.read_bytes()


def test_save_figure_without_directory_writes_nothing(tmp_path):
    fig = _figure()
    assert save_figure(fig, "demo", "") == []
    plt.close(fig)


def test_save_figure_rejects_bad_names(tmp_path):
    fig = _figure()
    with pytest.raises(ValueError, match="figure name"):
        save_figure(fig, "../escape", tmp_path)
    plt.close(fig)
