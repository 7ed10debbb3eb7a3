"""House style, figure saving, and figures shown in notebooks."""

import base64
import re
import struct
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import IPython.display
import matplotlib.pyplot as plt
import nbformat
import pytest

from ppdp.compendium import plotting
from ppdp.compendium.plotting import method_style, save_figure, show_figure, use_style

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


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


def test_show_figure_outside_a_kernel_does_nothing():
    fig = _figure()
    assert not show_figure(fig)
    assert plt.fignum_exists(fig.number)
    plt.close(fig)


def test_show_figure_in_a_kernel_displays_png_and_closes(monkeypatch, tmp_path):
    shown = []
    monkeypatch.setattr(plotting, "in_kernel", lambda: True)
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append((obj, raw)))
    fig = _figure()
    written = save_figure(fig, "demo", tmp_path)
    assert [p.name for p in written] == ["demo.png", "demo.pdf"]
    assert len(shown) == 1
    bundle, raw = shown[0]
    assert raw
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    # the image is the figure at its own size (tight bounding box: at most that)
    width, height = struct.unpack(">II", png[16:24])
    assert 0.5 * fig.get_figwidth() * fig.dpi < width <= fig.get_figwidth() * fig.dpi + 1
    assert 0.5 * fig.get_figheight() * fig.dpi < height <= fig.get_figheight() * fig.dpi + 1
    assert "Figure" in bundle["text/plain"]
    # closed, so the inline backend does not show it a second time
    assert not plt.fignum_exists(fig.number)


def test_save_figure_show_false_keeps_the_figure(monkeypatch):
    monkeypatch.setattr(plotting, "in_kernel", lambda: True)
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: pytest.fail("displayed"))
    fig = _figure()
    save_figure(fig, "demo", "", show=False)
    assert plt.fignum_exists(fig.number)
    plt.close(fig)


def test_in_kernel_is_false_under_pytest():
    assert not plotting.in_kernel()


def _code_cells(path):
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_cell_saves_and_so_shows_its_figure(path):
    """save_figure is what puts a figure into the notebook; a cell that draws must call it."""
    for cell in _code_cells(path):
        if re.search(r"plt\.(subplots|figure)\(|\.plot_\w+\(", cell.source):
            assert "save_figure(" in cell.source, cell.source
        # checked outputs must stay text: no figure in a cell nbval compares
        if "# NBVAL_CHECK_OUTPUT" in cell.source:
            assert not re.search(r"save_figure\(|plt\.|\.plot_\w+\(", cell.source), cell.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebooks_show_their_figures(path):
    images = [
        o
        for c in _code_cells(path)
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    assert images, f"{path.name} has no figure among its outputs"


@pytest.mark.slow
def test_notebook_run_by_papermill_under_agg_embeds_its_figures(smoke_run):
    """The pipeline's way of running a notebook (papermill, MPLBACKEND=Agg, the smoke profile): each
    figure the notebook saves is also shown inline, once, as a PNG (under Agg, plt.show() would
    show nothing)."""
    out = smoke_run / "results" / "smoke" / "datasets.ipynb"
    outputs = [o for c in _code_cells(out) for o in c.get("outputs", [])]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    saved = sorted((smoke_run / "figures" / "smoke" / "datasets").glob("*.png"))
    # the distribution plot and one heat map per dataset
    assert "private_distributions.png" in [p.name for p in saved]
    assert "nmi_german-credit-numeric.png" in [p.name for p in saved]
    assert len(images) == len(saved)
    for image in images:
        assert base64.b64decode(image["data"]["image/png"]).startswith(b"\x89PNG")
