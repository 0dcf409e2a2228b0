"""swigflow.data.Options / Dataset.with_options: TensorFlow's option tree, merged and read back;
the elements and iterator states are the input's."""

import json

import pytest

from swigflow.data import Dataset, Options


def test_options_merge_later_set_values_win():
    a, b = Options(), Options()
    a.deterministic = False
    a.threading.private_threadpool_size = 4
    b.threading.private_threadpool_size = 8
    b.experimental_optimization.map_parallelization = True
    ds = Dataset.range(5).with_options(a).map(lambda x: x + 1).with_options(b)
    options = ds.options()
    assert options.deterministic is False  # set by a, not by b
    assert options.threading.private_threadpool_size == 8
    assert options.experimental_optimization.map_parallelization is True
    assert options.autotune.enabled is None  # never set
    assert Dataset.range(3).options() == Options()


def test_experimental_deterministic_is_deterministic():
    options = Options()
    options.experimental_deterministic = False
    assert options.deterministic is False


def test_unknown_options_and_wrong_types_raise():
    options = Options()
    with pytest.raises(AttributeError, match="Cannot set the property no_such_option"):
        options.no_such_option = 1
    with pytest.raises(TypeError):
        options.deterministic = "yes"
    with pytest.raises(TypeError):
        options.threading.private_threadpool_size = True
    with pytest.raises(TypeError):
        Dataset.range(3).with_options({"deterministic": True})


def test_with_options_keeps_elements_cardinality_and_states():
    ds = Dataset.range(10).with_options(Options()).batch(3)
    assert [b.tolist() for b in ds] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert ds.cardinality() == 4
    it = ds.iterator()
    next(it)
    state = json.loads(json.dumps(it.state()))
    assert [b.tolist() for b in ds.iterator(state=state)] == [[3, 4, 5], [6, 7, 8], [9]]


def test_every_native_pipeline_option_is_copied_or_set():
    """Each field of swigflow::data::PipelineOptions (the SWIG proxy's properties) is copied
    from the NativeSteps field of its name or set where records.py builds the options: a new
    C++ field cannot silently keep its default."""
    import ast
    import dataclasses
    import inspect

    from swigflow import pywrap_swigflow
    from swigflow.data import records

    proxy = vars(pywrap_swigflow.PipelineOptions)
    fields = {n for n, v in proxy.items() if inspect.isdatadescriptor(v) and not n.startswith("_")}
    fields -= {"this", "thisown"}  # SWIG's own
    assert {"cycle_length", "specs", "start_position"} <= fields  # the proxy lists them
    copied = {f.name for f in dataclasses.fields(records.NativeSteps)}
    tree = ast.parse(inspect.getsource(records))
    assigned = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "options"
    }
    calls = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert "AddSourceFiles" in calls  # sets options.files
    assert fields - copied - assigned - {"files"} == set()
