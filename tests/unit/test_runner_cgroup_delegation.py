"""Finding a cgroup v2 folder for the run groups (verify/runner/cgroup_delegation.py), over a
fake tree: tmp folders shaped like /sys/fs/cgroup and /proc/self, with a fake kernel that
keeps the rules acquisition depends on (a process is in one group; no controllers for the
children of a group that holds processes, the root excepted; only writable folders)."""
from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from verify.runner import cgroup, cgroup_delegation, reaper
from verify.runner.cgroup_delegation import SHARED_LEAF, Host, acquire, use_folder, v2_folder

PID = 4242
DEAD_TAG = "999999999-1"          # no such pid: a killed verify's tag


class FakeKernel:
    def __init__(self, tmp: Path) -> None:
        self.top = tmp / "sys-fs-cgroup"
        self.proc = tmp / "proc-self"
        self.proc.mkdir()
        self.top.mkdir()
        for name, text in (("cgroup.controllers", "cpu io memory pids"), ("cgroup.subtree_control", ""),
                           ("cgroup.procs", "")):
            (self.top / name).write_text(text)
        self.root = self.top          # the real root; `top` is the mount point verify sees
        self.read_only: set[Path] = set()
        self.asked: list[tuple[str, int, bool]] = []
        self.exit_hooks: list = []
        self.mount_root = "/"

    def group(self, path: str, procs: tuple[int, ...] = (), subtree: str = "") -> Path:
        """Make the group at `path` (and the levels above it, which give their children every
        controller they have, as systemd does along a delegated unit's path)."""
        folder = self.top
        for part in [p for p in path.split("/") if p]:
            if folder != self.top and not (folder / "cgroup.subtree_control").read_text():
                (folder / "cgroup.subtree_control").write_text((folder / "cgroup.controllers").read_text())
            folder = folder / part
            folder.mkdir(exist_ok=True)
            self._complete(folder)
        (folder / "cgroup.subtree_control").write_text(subtree)
        for pid in procs:
            self.write(folder / "cgroup.procs", str(pid))
        return folder

    def _complete(self, folder: Path) -> None:
        if folder == self.root:
            return
        if not (folder / "cgroup.type").exists():
            (folder / "cgroup.type").write_text("domain")
            (folder / "cgroup.controllers").write_text((folder.parent / "cgroup.subtree_control").read_text())
            (folder / "cgroup.subtree_control").write_text("")
            (folder / "cgroup.procs").write_text("")

    def place(self, path: str) -> None:
        """Where verify (PID) is, as /proc/self/cgroup and mountinfo say."""
        (self.proc / "cgroup").write_text(f"0::{path}\n")
        (self.proc / "mountinfo").write_text(
            f"22 27 0:21 / /proc rw,nosuid - proc proc rw\n"
            f"30 25 0:26 {self.mount_root} {self.top} rw,nosuid,nodev - cgroup2 cgroup2 rw,nsdelegate\n")

    def members(self, folder: Path) -> set[int]:
        return {int(word) for word in (folder / "cgroup.procs").read_text().split()}

    def write(self, path: Path, text: str) -> None:
        folder = path.parent
        self._complete(folder)
        if not self.writable(folder):
            raise PermissionError(errno.EACCES, "Permission denied")
        if path.name == "cgroup.subtree_control":
            enabled = set((folder / "cgroup.subtree_control").read_text().split())
            sign, controller = text[0], text[1:]
            if sign == "+":
                if controller not in (folder / "cgroup.controllers").read_text().split():
                    raise FileNotFoundError(errno.ENOENT, "No such file or directory")
                if folder != self.root and self.members(folder):
                    raise OSError(errno.EBUSY, "Device or resource busy")
                enabled.add(controller)
            else:
                enabled.discard(controller)
            path.write_text(" ".join(sorted(enabled)))
        elif path.name == "cgroup.procs":
            pid = int(text)
            if folder != self.root and (folder / "cgroup.subtree_control").read_text().split():
                raise OSError(errno.EBUSY, "Device or resource busy")
            for procs in self.root.rglob("cgroup.procs"):
                left = self.members(procs.parent) - {pid}
                procs.write_text(" ".join(str(p) for p in sorted(left)))
            path.write_text(" ".join(str(p) for p in sorted(self.members(folder) | {pid})))
            if pid == PID:
                relative = folder.relative_to(self.top).as_posix()
                self.place("/" if relative == "." else "/" + relative)
        else:
            path.write_text(text)

    def remove(self, folder: Path) -> None:
        if self.members(folder) or any(child.is_dir() for child in folder.iterdir()):
            raise OSError(errno.EBUSY, "Device or resource busy")
        shutil.rmtree(folder)

    def writable(self, folder: Path) -> bool:
        return not any(folder == locked or locked in folder.parents for locked in self.read_only)

    def host(self, *, uid: int = 0, systemd: bool = False, scope_path: str | None = None,
             refusal: str = "") -> Host:
        def ask_scope(unit: str, pid: int, user: bool) -> str:
            self.asked.append((unit, pid, user))
            if refusal:
                return refusal
            if scope_path is not None:
                self.group(f"{scope_path}/{unit}")
                self.write(self.top / scope_path.strip("/") / unit / "cgroup.procs", str(pid))
            return ""
        return Host(proc_self=self.proc, pid=PID, current_pid=lambda: PID, uid=uid, systemd_booted=systemd,
                    ask_scope=ask_scope, at_exit=self.exit_hooks.append, write=self.write,
                    writable=self.writable, remove=self.remove, scope_wait=0.0)


@pytest.fixture
def kernel(tmp_path):
    return FakeKernel(tmp_path)


def test_the_root_cgroup_with_memory_and_pids_for_its_children_is_used_as_it_is(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    kernel.write(kernel.top / "cgroup.procs", str(PID))
    kernel.place("/")
    found = acquire(kernel.host())
    assert found.parent == kernel.top
    assert kernel.members(kernel.top) == {PID} and kernel.exit_hooks == []


def test_the_root_cgroup_gets_the_controllers_enabled(kernel):
    kernel.write(kernel.top / "cgroup.procs", str(PID))
    kernel.place("/")
    assert acquire(kernel.host()).parent == kernel.top
    assert (kernel.top / "cgroup.subtree_control").read_text().split() == ["cpu", "memory", "pids"]


def test_alone_in_a_delegated_cgroup_verify_moves_into_a_leaf_and_its_run_groups_are_siblings(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("cpu memory pids")
    scope = kernel.group("/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope", procs=(PID,))
    kernel.place("/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope")
    found = acquire(kernel.host(uid=1000))
    leaf = scope / f"{reaper.cgroup_name_prefix()}judge"
    assert found.parent == scope
    assert kernel.members(leaf) == {PID} and kernel.members(scope) == set()
    assert (scope / "cgroup.subtree_control").read_text().split() == ["cpu", "memory", "pids"]
    assert v2_folder(kernel.proc) == (leaf, f"/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope/"
                                            f"{leaf.name}")
    setup = cgroup.CgroupSetup("v2", (("unified", found.parent),))
    assert setup.parent_folders == [scope]          # where the reaper looks for a killed verify's groups


def test_at_exit_the_delegated_cgroup_is_given_back_as_it_was(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    scope = kernel.group("/system.slice/own.scope", procs=(PID,), subtree="")
    kernel.place("/system.slice/own.scope")
    acquire(kernel.host())
    [undo] = kernel.exit_hooks
    undo()
    assert kernel.members(scope) == {PID}
    assert (scope / "cgroup.subtree_control").read_text() == ""
    assert [child.name for child in scope.iterdir() if child.is_dir()] == []


def test_the_exit_hook_does_nothing_in_a_forked_child(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    scope = kernel.group("/system.slice/own.scope", procs=(PID,))
    kernel.place("/system.slice/own.scope")
    host = kernel.host()
    acquire(host)
    host.current_pid = lambda: PID + 1
    kernel.exit_hooks[0]()
    assert kernel.members(scope) == set()
    assert (scope / "cgroup.subtree_control").read_text().split() == ["memory", "pids"]


def test_a_cgroup_holding_other_processes_is_not_taken_over(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    service = kernel.group("/system.slice/judge.service", procs=(PID, 77))
    kernel.place("/system.slice/judge.service")
    found = acquire(kernel.host())
    assert found.parent is None
    assert "holds 1 other process" in found.reason and "/system.slice/judge.service" in found.reason
    assert kernel.members(service) == {PID, 77} and (service / "cgroup.subtree_control").read_text() == ""


def test_a_cgroup_that_is_not_ours_is_not_written(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    session = kernel.group("/user.slice/user-1000.slice/session-2.scope", procs=(PID,))
    kernel.read_only.add(kernel.top / "user.slice")
    kernel.place("/user.slice/user-1000.slice/session-2.scope")
    found = acquire(kernel.host(uid=1000))
    assert found.parent is None and "not delegated to uid 1000" in found.reason
    assert kernel.members(session) == {PID}


def test_without_memory_and_pids_in_the_hierarchy_systemd_is_not_asked(kernel):
    (kernel.top / "cgroup.controllers").write_text("")          # a hybrid host: they are on v1
    kernel.place("/")
    found = acquire(kernel.host(systemd=True))
    assert found.parent is None and "no memory and pids controllers" in found.reason
    assert kernel.asked == []


def test_a_controller_the_cgroup_does_not_get_is_named(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("pids")
    kernel.group("/user.slice/u.scope", procs=(PID,))
    kernel.place("/user.slice/u.scope")
    found = acquire(kernel.host())
    assert found.parent is None and "offers no memory controller" in found.reason


def test_a_container_cgroup_root_moves_its_processes_into_a_shared_leaf(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("cpu memory pids")
    container = kernel.group("/machine.slice/libpod-1.scope", procs=(1, 7, PID))
    kernel.top = container                                      # a private cgroup namespace: its root is "/"
    kernel.place("/")
    found = acquire(kernel.host())
    assert found.parent == container
    assert kernel.members(container / SHARED_LEAF) == {1, 7, PID} and kernel.members(container) == set()
    assert set((container / "cgroup.subtree_control").read_text().split()) == {"memory", "pids", "cpu"}
    assert kernel.exit_hooks == []                              # the container's processes stay in the leaf


def test_the_next_verify_in_the_shared_leaf_uses_its_parent(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    container = kernel.group("/c", subtree="")
    kernel.top = container
    kernel.place("/")
    kernel.write(container / "cgroup.procs", "1")
    kernel.write(container / "cgroup.procs", str(PID))
    acquire(kernel.host())
    again = acquire(kernel.host())
    assert again.parent == container and SHARED_LEAF in again.how


def test_a_worker_verify_started_in_a_live_verify_leaf_uses_its_parent(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    scope = kernel.group("/system.slice/verify.scope", procs=(PID, 99))
    leaf = f"{reaper.cgroup_name_prefix()}judge"
    kernel.group(f"/system.slice/verify.scope/{leaf}")
    for pid in (99, PID):
        kernel.write(scope / leaf / "cgroup.procs", str(pid))
    kernel.write(scope / "cgroup.subtree_control", "+memory")
    kernel.write(scope / "cgroup.subtree_control", "+pids")
    found = use_folder(kernel.host(), scope / leaf, f"/system.slice/verify.scope/{leaf}")
    assert found.parent == scope and kernel.members(scope / leaf) == {99, PID}


def test_systemd_is_asked_for_a_delegated_scope_and_verify_settles_in_it(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    kernel.group("/user.slice/user-1000.slice/session-2.scope", procs=(PID, 55))
    kernel.read_only.add(kernel.top / "user.slice" / "user-1000.slice" / "session-2.scope")
    kernel.place("/user.slice/user-1000.slice/session-2.scope")
    app = "/user.slice/user-1000.slice/user@1000.service/app.slice"
    kernel.group(app, subtree="memory pids")
    found = acquire(kernel.host(uid=1000, systemd=True, scope_path=app))
    unit = f"verify-{reaper.owner_tag()}.scope"
    assert kernel.asked == [(unit, PID, True)]
    scope = kernel.top / app.strip("/") / unit
    assert found.parent == scope and unit in found.how
    assert kernel.members(scope / f"{reaper.cgroup_name_prefix()}judge") == {PID}


def test_root_asks_the_system_manager(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    kernel.group("/system.slice/judge.service", procs=(PID, 3))
    kernel.place("/system.slice/judge.service")
    kernel.group("/system.slice", subtree="memory pids")
    found = acquire(kernel.host(uid=0, systemd=True, scope_path="/system.slice"))
    assert [user for _, _, user in kernel.asked] == [False] and found.parent is not None


def test_a_refusal_of_systemd_is_part_of_the_reason(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    kernel.group("/system.slice/judge.service", procs=(PID, 3))
    kernel.place("/system.slice/judge.service")
    found = acquire(kernel.host(systemd=True, refusal="Access denied"))
    assert found.parent is None
    assert "holds 1 other process" in found.reason and "(Access denied)" in found.reason


def test_a_scope_systemd_never_moves_verify_into_is_a_reason(kernel):
    (kernel.top / "cgroup.subtree_control").write_text("memory pids")
    kernel.group("/system.slice/judge.service", procs=(PID, 3))
    kernel.place("/system.slice/judge.service")
    found = acquire(kernel.host(systemd=True))                # asked, but nothing moved
    assert found.parent is None and "did not move verify into verify-" in found.reason


def test_a_killed_verify_s_scope_next_to_ours_is_emptied(kernel, tmp_path):
    slice_folder = tmp_path / "app.slice"
    stale = slice_folder / f"verify-{DEAD_TAG}.scope"
    (stale / f"verify-{DEAD_TAG}-judge").mkdir(parents=True)
    (stale / f"verify-{DEAD_TAG}-0a1b2c3d").mkdir()
    live = slice_folder / f"verify-{reaper.owner_tag()}.scope"
    (live / f"verify-{reaper.owner_tag()}-judge").mkdir(parents=True)
    other = slice_folder / "firefox.scope" / f"verify-{DEAD_TAG}-judge"
    other.mkdir(parents=True)
    cgroup_delegation.remove_stale_scopes(slice_folder)
    assert list(stale.iterdir()) == []
    assert (live / f"verify-{reaper.owner_tag()}-judge").is_dir() and other.is_dir()


def test_a_mount_of_a_subtree_maps_the_path_below_its_root(kernel):
    kernel.mount_root = "/docker/abc"
    kernel.place("/docker/abc/inner")
    assert v2_folder(kernel.proc) == (kernel.top / "inner", "/docker/abc/inner")
    kernel.place("/elsewhere")
    assert v2_folder(kernel.proc) is None


def test_without_cgroup2_mounted_the_reason_says_so(kernel):
    (kernel.proc / "cgroup").write_text("0::/\n")
    (kernel.proc / "mountinfo").write_text("22 27 0:21 / /proc rw - proc proc rw\n")
    found = acquire(kernel.host())
    assert found.parent is None and "no cgroup v2 hierarchy" in found.reason


def test_the_reason_is_empty_exactly_when_this_machine_gives_run_groups():
    assert (cgroup.unavailable_reason() == "") == (cgroup.probed_setup() is not None)


def test_without_a_user_bus_the_user_s_manager_is_not_asked(monkeypatch, tmp_path):
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setattr(cgroup_delegation.shutil, "which", lambda name: "/usr/bin/busctl")
    monkeypatch.setattr(cgroup_delegation.subprocess, "run", pytest.fail)
    reason = cgroup_delegation.ask_systemd_for_scope("verify-1-2.scope", PID, user=True)
    assert f"no user bus at {tmp_path}/bus" in reason and "dbus-user-session" in reason


def test_without_busctl_systemd_is_not_asked(monkeypatch):
    monkeypatch.setattr(cgroup_delegation.shutil, "which", lambda name: None)
    assert cgroup_delegation.ask_systemd_for_scope("verify-1-2.scope", PID, user=False) == "busctl is not installed"
