"""PyTorch's profiler table (``torch.autograd.profiler_util._build_table``), column for column,
for this engine's events: no device columns (host time only), no FLOPs, no node ids."""

from __future__ import annotations

from typing import Any


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_time_us: float) -> str:
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes: int) -> str:
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return f"{nbytes} B"


_SPACING = 2
_COLUMN = 12  # PyTorch's DEFAULT_COLUMN_WIDTH
_SORT_KEYS = ("cpu_time", "cuda_time", "xpu_time", "device_time", "cpu_time_total", "cuda_time_total",
              "xpu_time_total", "device_time_total", "self_cpu_time_total", "self_cuda_time_total",
              "self_xpu_time_total", "self_device_time_total", "cpu_memory_usage", "cuda_memory_usage",
              "xpu_memory_usage", "device_memory_usage", "self_cpu_memory_usage", "self_cuda_memory_usage",
              "self_xpu_memory_usage", "self_device_memory_usage", "count")


class _Columns:
    """The row format PyTorch builds: right-aligned columns of given widths, two spaces apart."""

    def __init__(self) -> None:
        self.row_format, self.separator, self.width = "", "", -_SPACING

    def add(self, padding: int, align: str = ">") -> None:
        self.row_format += "{: " + align + str(padding) + "}" + " " * _SPACING
        self.separator += "-" * padding + " " * _SPACING
        self.width += padding + _SPACING


def _in_unit(time_us: float, unit: str | None) -> str:
    if unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if unit == "us":
        return f"{time_us:.3f}us"
    return _format_time(time_us)


def _at_most(width: int, limit: int | None) -> int:
    """A column's width, cut to ``limit`` (None: no limit, as PyTorch's ``max_*_column_width=None``)."""
    return width if limit is None else min(width, limit)


def _trim_path(path: str, width: int) -> str:
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def _sorted(events: Any, sort_by: str | None) -> list:
    if sort_by is None:
        return list(events)
    if sort_by not in _SORT_KEYS:
        raise AttributeError(f"sort_by={sort_by!r} is not an attribute of the profiler's events; "
                             f"one of {', '.join(_SORT_KEYS)}")
    attribute = sort_by.replace("cuda", "device").replace("xpu", "device")
    return sorted(events, key=lambda e: getattr(e, attribute), reverse=True)


def build_table(events: Any, sort_by: str | None = None, header: str | None = None, row_limit: int = 100,
                max_src_column_width: int | None = 75, max_name_column_width: int | None = 55,
                max_shapes_column_width: int | None = 80, profile_memory: bool = False,
                top_level_events_only: bool = False, time_unit: str | None = None) -> str:
    """The table of ``events`` (see :meth:`EventList.table`); ``""`` for no events, as PyTorch's."""
    if len(events) == 0:
        return ""
    events = _sorted(events, sort_by)
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    stacks = [e.stack for e in events if e.stack]
    name_width = _at_most(max(len(e.key) for e in events) + 4, max_name_column_width)
    shapes_width = _at_most(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    columns = _Columns()
    columns.add(name_width)
    for _ in headers[1:]:
        columns.add(_COLUMN)
    if has_shapes:
        headers.append("Input Shapes")
        columns.add(shapes_width)
    src_width = 0
    if stacks:
        src_width = _at_most(max(len(entry) for stack in stacks for entry in stack) + 4, max_src_column_width)
        headers.append("Source Location")
        columns.add(src_width, "<")
    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * columns.width, header]
    if top_level_events_only:
        lines += ["=" * columns.width, "This report only display top-level ops statistics"]
    lines += [columns.separator, columns.row_format.format(*headers), columns.separator]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        lines += _rows(e, columns.row_format, len(headers), total, profile_memory, has_shapes, shapes_width,
                       src_width if stacks else 0, max_name_column_width, time_unit)
    lines += [columns.separator, f"Self CPU time total: {_in_unit(total, time_unit)}"]
    return "".join(line + "\n" for line in lines)


def _rows(e: Any, row_format: str, n_headers: int, total: float, profile_memory: bool, has_shapes: bool,
          shapes_width: int, src_width: int, max_name_width: int | None, time_unit: str | None) -> list[str]:
    """``e``'s row, and with a stack one more row per stack entry and an empty one."""
    name = e.key
    if max_name_width is not None and len(name) >= max_name_width - 3:
        name = name[:max_name_width - 3] + "..."
    values: list[Any] = [name, _format_time_share(e.self_cpu_time_total, total),
                         _in_unit(e.self_cpu_time_total, time_unit), _format_time_share(e.cpu_time_total, total),
                         _in_unit(e.cpu_time_total, time_unit), _in_unit(e.cpu_time, time_unit)]
    if profile_memory:
        values += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
    values.append(e.count)
    if has_shapes:
        values.append(str(e.input_shapes)[:shapes_width])
    if not src_width:
        return [row_format.format(*values)]
    values.append(_trim_path(e.stack[0], src_width) if e.stack else "")
    rows = [row_format.format(*values)]
    empty = [""] * (n_headers - 1)
    rows += [row_format.format(*empty, _trim_path(entry, src_width)) for entry in (e.stack or [])[1:]]
    rows.append(row_format.format(*empty, ""))
    return rows
