"""`make lab`: JupyterLab from the project's environment lists the notebooks and runs them.

Starts a real server on 127.0.0.1 (free port, random token, no browser) with the command `make lab`
runs (read from `make -n lab`, so that its options, --allow-root for root included, are the ones
tested), reads notebooks/ through the REST API, starts a kernel and runs the first cells of the
datasets notebook over the kernel's websocket, with a smaller parameter as a reader would set it by
hand. The server starts without the CPU kernel caps in its environment; the kernel has them.
"""

import json
import os
import secrets
import shlex
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import nbformat
import pytest
import requests
import websocket

from ppdp import kernels

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TIMEOUT = 60

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_lab_command(lab_args: list[str]) -> list[str]:
    """The command `make lab LAB_ARGS=...` runs in this environment (its last line under -n)."""
    proc = subprocess.run(
        ["make", "-s", "-n", "-C", str(ROOT), "lab", f"VENV={sys.prefix}",
         f"LAB_ARGS={shlex.join(lab_args)}"],
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("env -u MPLBACKEND ")]
    assert lines, proc.stdout
    return shlex.split(lines[-1])


def test_make_lab_allows_root_only_as_root():
    """Jupyter refuses to start as root without --allow-root; make lab adds it for root only."""
    cmd = make_lab_command([])
    assert cmd[:3] == ["env", "-u", "MPLBACKEND"]
    assert Path(cmd[3]) == BIN / "jupyter" and cmd[4] == "lab"
    assert ("--allow-root" in cmd) is (os.geteuid() == 0)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    runtime = tmp_path_factory.mktemp("jupyter-runtime")
    port, token = _free_port(), secrets.token_hex(16)
    # a shell that never ran make: no caps, no hash seed (make lab unsets MPLBACKEND itself)
    routed = (*kernels.CAPS, *kernels.HASH_SEED, kernels.NATIVE)
    env = {k: v for k, v in os.environ.items() if k not in routed}
    env.update(JUPYTER_RUNTIME_DIR=str(runtime), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}")
    # the command of `make lab`, plus what a test needs: loopback, a fixed port, a token, no browser
    cmd = make_lab_command(
        [
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            "--ServerApp.open_browser=False",
            "--no-browser",
        ]
    )
    log = (runtime / "server.log").open("w")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    session = requests.Session()
    session.headers["Authorization"] = f"token {token}"
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{_tail(runtime)}")
            try:
                if session.get(f"{base}/api/status", timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not answer in {TIMEOUT} s:\n{_tail(runtime)}")
            time.sleep(0.3)
        yield base, token, session
    finally:
        try:
            session.post(f"{base}/api/shutdown", timeout=5)
            proc.wait(timeout=15)
        except (requests.RequestException, subprocess.TimeoutExpired):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


def _tail(runtime: Path) -> str:
    return (runtime / "server.log").read_text()[-3000:]


def test_lab_page_and_notebook_listing(server):
    base, _, session = server
    page = session.get(f"{base}/lab/tree/notebooks", timeout=10)
    assert page.status_code == 200 and "JupyterLab" in page.text
    listing = session.get(f"{base}/api/contents/notebooks", timeout=10)
    assert listing.status_code == 200
    listed = {item["name"] for item in listing.json()["content"]}
    assert listed >= {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    # every notebook names a kernel the server offers
    specs = session.get(f"{base}/api/kernelspecs", timeout=10).json()["kernelspecs"]
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        assert nbformat.read(path, as_version=4).metadata.kernelspec.name in specs


def _execute(ws, session_id: str, code: str) -> tuple[dict, str]:
    """Run ``code``; return the execute_reply content and the text the cell printed."""
    msg_id = uuid.uuid4().hex
    ws.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "session": session_id,
                    "username": "test",
                    "version": "5.3",
                },
                "parent_header": {},
                "metadata": {},
                "content": {"code": code, "silent": False, "store_history": False},
                "channel": "shell",
            }
        )
    )
    printed, reply, idle = [], None, False
    deadline = time.monotonic() + TIMEOUT
    while reply is None or not idle:
        ws.settimeout(max(0.1, deadline - time.monotonic()))
        msg = json.loads(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["header"]["msg_type"]
        if kind == "stream":
            printed.append(msg["content"]["text"])
        elif kind == "error":
            printed.append("\n".join(msg["content"]["traceback"]))
        elif kind == "execute_reply":
            reply = msg["content"]
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            idle = True
    return reply, "".join(printed)


def test_kernel_runs_the_first_cells_of_a_notebook(server):
    base, token, session = server
    notebook = session.get(f"{base}/api/contents/notebooks/datasets.ipynb", timeout=10).json()
    cells = [c for c in notebook["content"]["cells"] if c["cell_type"] == "code"]
    assert "parameters" in cells[0]["metadata"].get("tags", [])
    kernel_name = notebook["content"]["metadata"]["kernelspec"]["name"]
    kernel = session.post(f"{base}/api/kernels", json={"name": kernel_name}, timeout=30).json()
    url = f"ws://127.0.0.1:{base.rsplit(':', 1)[1]}/api/kernels/{kernel['id']}/channels"
    ws = websocket.create_connection(url, header=[f"Authorization: token {token}"], timeout=30)
    try:
        session_id = uuid.uuid4().hex
        # the parameters cell, then one parameter changed by hand, then the set-up cell
        for code in (
            cells[0]["source"],
            'datasets = ["german-credit-numeric"]',
            cells[1]["source"],
        ):
            reply, printed = _execute(ws, session_id, code)
            assert reply["status"] == "ok", printed
        reply, printed = _execute(
            ws,
            session_id,
            "import json, os, sys; print(sys.prefix); print(list(views)); "
            f"print(json.dumps({{n: os.environ.get(n) for n in {list(kernels.CAPS)!r}}}))",
        )
        assert reply["status"] == "ok", printed
        prefix, names, caps = printed.splitlines()
        # the kernel runs in the project's environment, with the parameter set by hand
        assert Path(prefix).resolve() == Path(sys.prefix).resolve()
        assert names == "['german-credit-numeric']"
        # and with the CPU kernel caps, which the server's environment lacks
        expected = {**dict.fromkeys(kernels.CAPS), **kernels.environment({}, hash_seed=False)}
        assert json.loads(caps) == expected
    finally:
        ws.close()
        session.delete(f"{base}/api/kernels/{kernel['id']}", timeout=10)
