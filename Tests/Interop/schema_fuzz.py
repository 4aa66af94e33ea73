"""Fuzzes a running `stratus serve` from its own schema (scripts/schema-fuzz starts the server).

    python3 Tests/Interop/schema_fuzz.py --url http://127.0.0.1:PORT/graphql --api-key KEY
        [--seconds 60] [--seed N] [--server-pid PID]

Reads the served schema by introspection, then has hypothesis-graphql generate queries and
mutations for it (valid ones, and a share with one schema violation each) and sends each over
HTTP with the API key. Each answer must be:

- an HTTP status below 500, and 200 for a document the schema accepts;
- a GraphQL response (`data`, `errors`, `extensions` only; errors with a `message`, paths of
  names and indexes); a document the schema refuses gets errors and no data;
- shaped as the document asks (graphql-core's schema): every selected field present, in the
  order of the selection, no other keys, each value of its type's JSON kind, and null only where
  the type allows it or an error names that path.

After a `create<Model>` or `update<Model>` that answered without error, `get<Model>` with the same
selection must answer the same values. The server must be alive at the end.

Examples run in rounds of hypothesis runs, each seeded from `--seed` and its round number, until
`--seconds` have passed; the same seed against a new data directory replays the same requests.
Prints one summary line and exits 1 on the first failure (after hypothesis has shrunk it).
"""

import argparse
import datetime
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
from collections import Counter

import graphql
import hypothesis_graphql
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

# The item ids the generated arguments use: few enough that creates collide, updates and deletes
# find items, and relations point at items that exist.
ID_POOL = ["b1", "b2", "p1", "p2", "p3", "c1", "c2", "a1"]
ROUND_EXAMPLES = 100
REQUEST_TIMEOUT = 30


class Failure(AssertionError):
    """A check the server failed; the message says which, with the request and the answer."""


def value_node(value):
    return graphql.StringValueNode(value=value)


def custom_scalars():
    """Strategies for AppSync's scalars (and `ID`, drawn mostly from `ID_POOL`), as AST values.

    hypothesis-graphql has no strategies of its own for scalars beyond GraphQL's five; these
    draw values AppSync's validation accepts, so that writes reach the store.
    """
    dates = st.dates(min_value=datetime.date(1, 1, 1), max_value=datetime.date(9999, 12, 31))
    times = st.times().map(lambda t: t.strftime("%H:%M:%S") + (f".{t.microsecond // 1000:03d}" if t.microsecond else ""))
    zones = st.sampled_from(["Z", "+00:00", "-05:30", "+14:00"])
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=10),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=8,
    )
    words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
    return {
        "ID": st.sampled_from(ID_POOL).map(value_node) | st.uuids().map(lambda u: value_node(str(u))),
        "AWSDate": dates.map(lambda d: value_node(d.isoformat())),
        "AWSTime": st.tuples(times, zones | st.just("")).map(lambda p: value_node(p[0] + p[1])),
        "AWSDateTime": st.tuples(dates, times, zones).map(lambda p: value_node(f"{p[0].isoformat()}T{p[1]}{p[2]}")),
        "AWSTimestamp": st.integers(0, 2**40).map(lambda n: graphql.IntValueNode(value=str(n))),
        "AWSEmail": st.tuples(words, words).map(lambda p: value_node(f"{p[0]}@{p[1]}.example")),
        "AWSURL": words.map(lambda w: value_node(f"https://{w}.example/{w}?q={w}")),
        "AWSPhone": st.integers(2000000, 9999999).map(lambda n: value_node(f"+1 555 {n}")),
        "AWSIPAddress": st.ip_addresses().map(lambda a: value_node(str(a))),
        "AWSJSON": json_values.map(lambda v: value_node(json.dumps(v))),
    }


class Server:
    """The server under test: HTTP requests with the API key, and its process's state."""

    def __init__(self, url, api_key, pid):
        self.url, self.api_key, self.pid = url, api_key, pid

    def post(self, query):
        request = urllib.request.Request(
            self.url,
            data=json.dumps({"query": query}).encode(),
            method="POST",
            headers={"content-type": "application/json", "x-api-key": self.api_key},
        )
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
        except (urllib.error.URLError, OSError) as error:
            raise Failure(f"no answer ({error}){self.state()}\n--- request\n{query}") from None

    def alive(self):
        if self.pid is None:
            return True
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                # The state follows the command's closing parenthesis; Z is a process that ended.
                return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except FileNotFoundError:
            return False

    def state(self):
        return "" if self.alive() else f"; the server (pid {self.pid}) is no longer running"


# --- the shape of an answer ---------------------------------------------------------------

JSON_KINDS = {
    "Int": lambda v: type(v) is int and -(2**31) <= v < 2**31,
    "Float": lambda v: type(v) in (int, float),
    "String": lambda v: type(v) is str,
    "ID": lambda v: type(v) is str,
    "Boolean": lambda v: type(v) is bool,
    "AWSTimestamp": lambda v: type(v) is int,
    "AWSJSON": lambda v: type(v) is str and parses_as_json(v),
}


def parses_as_json(text):
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def collect_fields(schema, object_type, selection_sets, fragments, fields=None, visited=None):
    """GraphQL's CollectFields: response keys in order, each with its field nodes."""
    fields = {} if fields is None else fields
    visited = set() if visited is None else visited
    for selection_set in selection_sets:
        for selection in selection_set.selections:
            if not included(selection):
                continue
            if isinstance(selection, graphql.FieldNode):
                key = selection.alias.value if selection.alias else selection.name.value
                fields.setdefault(key, []).append(selection)
            elif isinstance(selection, graphql.InlineFragmentNode):
                if applies(schema, selection.type_condition, object_type):
                    collect_fields(schema, object_type, [selection.selection_set], fragments, fields, visited)
            elif isinstance(selection, graphql.FragmentSpreadNode):
                name = selection.name.value
                fragment = fragments.get(name)
                if name in visited or fragment is None:
                    continue
                visited.add(name)
                if applies(schema, fragment.type_condition, object_type):
                    collect_fields(schema, object_type, [fragment.selection_set], fragments, fields, visited)
    return fields


def included(selection):
    for directive in selection.directives or ():
        condition = next((a.value for a in directive.arguments if a.name.value == "if"), None)
        if isinstance(condition, graphql.BooleanValueNode):
            if directive.name.value == "skip" and condition.value:
                return False
            if directive.name.value == "include" and not condition.value:
                return False
    return True


def applies(schema, condition, object_type):
    if condition is None or condition.name.value == object_type.name:
        return True
    named = schema.get_type(condition.name.value)
    return graphql.is_abstract_type(named) and schema.is_sub_type(named, object_type)


class ShapeCheck:
    """Checks an answer's `data` against the document and the schema."""

    def __init__(self, schema, document, error_paths):
        self.schema, self.error_paths = schema, error_paths
        self.fragments = {d.name.value: d for d in document.definitions if isinstance(d, graphql.FragmentDefinitionNode)}

    def object(self, object_type, selection_sets, value, path):
        if type(value) is not dict:
            raise Failure(f"{show(path)} is {json.dumps(value)}, not an object of {object_type.name}")
        fields = collect_fields(self.schema, object_type, selection_sets, self.fragments)
        if list(value) != list(fields):
            raise Failure(f"{show(path)} has the keys {list(value)}, the selection asks for {list(fields)}")
        for key, nodes in fields.items():
            name = nodes[0].name.value
            if name == "__typename":
                if value[key] != object_type.name:
                    raise Failure(f"{show(path + [key])} is {json.dumps(value[key])}, not {object_type.name!r}")
                continue
            field = object_type.fields.get(name)
            if field is None:
                raise Failure(f"{show(path + [key])}: {object_type.name} has no field {name!r}")
            self.value(field.type, nodes, value[key], path + [key])

    def value(self, type_, nodes, value, path):
        if value is None:
            if graphql.is_non_null_type(type_) and tuple(path) not in self.error_paths:
                raise Failure(f"{show(path)} is null, but its type {type_} is not nullable and no error names it")
            return
        named = graphql.get_nullable_type(type_)
        if graphql.is_list_type(named):
            if type(value) is not list:
                raise Failure(f"{show(path)} is {json.dumps(value)}, not a list ({type_})")
            for index, item in enumerate(value):
                self.value(named.of_type, nodes, item, path + [index])
        elif graphql.is_enum_type(named):
            if value not in named.values:
                raise Failure(f"{show(path)} is {json.dumps(value)}, not a value of {named.name}")
        elif graphql.is_scalar_type(named):
            kind = JSON_KINDS.get(named.name, lambda v: type(v) is str)
            if not kind(value):
                raise Failure(f"{show(path)} is {json.dumps(value)}, not a {named.name}")
        elif graphql.is_object_type(named):
            self.object(named, [n.selection_set for n in nodes if n.selection_set], value, path)
        else:
            # Interfaces and unions: the concrete type is the one `__typename` names, when selected.
            typename = value.get("__typename") if type(value) is dict else None
            concrete = self.schema.get_type(typename) if typename else None
            if concrete is None or not self.schema.is_sub_type(named, concrete):
                raise Failure(f"{show(path)} of the abstract type {named.name} names no type of it: {json.dumps(value)}")
            self.object(concrete, [n.selection_set for n in nodes if n.selection_set], value, path)


def show(path):
    return "data" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def check_envelope(body):
    """The response's own shape; returns the set of paths its errors name."""
    if type(body) is not dict or not body or set(body) - {"data", "errors", "extensions"}:
        raise Failure(f"not a GraphQL response: {json.dumps(body)[:300]}")
    errors = body.get("errors")
    if errors is not None:
        if type(errors) is not list or not errors:
            raise Failure("`errors` is not a non-empty list")
        for error in errors:
            if type(error) is not dict or type(error.get("message")) is not str:
                raise Failure(f"an error without a message: {json.dumps(error)}")
            path = error.get("path")
            if path is not None and (type(path) is not list or not all(type(p) in (str, int) for p in path)):
                raise Failure(f"an error whose path is not a list of names and indexes: {json.dumps(error)}")
    if body.get("data") is None and not errors:
        raise Failure("neither data nor errors")
    return {tuple(e["path"]) for e in errors or () if type(e.get("path")) is list}


# --- a mutation's answer against get -------------------------------------------------------


def model_writes(schema, operation):
    """The root fields of a mutation that create or update a model, as (field node, model)."""
    writes = []
    for node in operation.selection_set.selections:
        if not isinstance(node, graphql.FieldNode):
            continue
        name = node.name.value
        for prefix in ("create", "update", "delete"):
            model = name[len(prefix):]
            if name.startswith(prefix) and schema.query_type.fields.get("get" + model):
                writes.append((node, prefix, model))
    return writes


def input_id(node):
    for argument in node.arguments:
        if argument.name.value == "input" and isinstance(argument.value, graphql.ObjectValueNode):
            for field in argument.value.fields:
                if field.name.value == "id" and isinstance(field.value, graphql.StringValueNode):
                    return field.value.value
    return None


def uses_spreads(node):
    found = []

    class Visitor(graphql.Visitor):
        def enter_fragment_spread(self, *_):
            found.append(True)

    graphql.visit(node, Visitor())
    return bool(found)


def differences(left, right, path, error_paths, out):
    """Paths where two answers differ, leaving out those an error names (or lies under)."""
    if any(path[: len(p)] == p for p in error_paths):
        return
    if type(left) is dict and type(right) is dict and list(left) == list(right):
        for key in left:
            differences(left[key], right[key], path + (key,), error_paths, out)
    elif type(left) is list and type(right) is list and len(left) == len(right):
        for index, (a, b) in enumerate(zip(left, right)):
            differences(a, b, path + (index,), error_paths, out)
    elif left != right or type(left) is not type(right):
        out.append(f"{show(list(path))}: the mutation answered {json.dumps(left)}, get answers {json.dumps(right)}")


class Fuzzer:
    def __init__(self, server, schema):
        self.server, self.schema = server, schema
        self.stats = Counter()
        self.error_types = Counter()
        self.error_examples = {}
        self.refusals = Counter()
        self.refusals = Counter()

    def send(self, document_node, valid):
        query = graphql.print_ast(document_node)
        status, raw = self.server.post(query)
        context = f"{self.server.state()}\n--- request\n{query}\n--- answer ({status})\n{raw.decode(errors='replace')[:4000]}"
        if status >= 500:
            raise Failure(f"HTTP {status}{context}")
        if valid and status != 200:
            raise Failure(f"HTTP {status} for a document the schema accepts{context}")
        try:
            body = json.loads(raw)
        except ValueError:
            raise Failure(f"the answer is not JSON{context}") from None
        try:
            error_paths = check_envelope(body)
            for error in body.get("errors") or ():
                self.error_types[str(error.get("errorType"))] += 1
                self.error_examples.setdefault(str(error.get("errorType")), error.get("message"))
            if valid and body.get("data") is not None:
                operation = graphql.get_operation_ast(document_node)
                root = self.schema.get_root_type(operation.operation)
                ShapeCheck(self.schema, document_node, error_paths).object(root, [operation.selection_set], body["data"], [])
            if not valid and not body.get("errors"):
                raise Failure("a document the schema refuses answered without errors")
        except Failure as failure:
            raise Failure(f"{failure}{context}") from None
        return body, error_paths

    def example(self, document_node):
        if not self.server.alive():
            raise Failure(f"the server (pid {self.server.pid}) is no longer running")
        valid = not graphql.validate(self.schema, document_node)
        self.stats["examples"] += 1
        self.stats["valid" if valid else "invalid"] += 1
        body, error_paths = self.send(document_node, valid)
        operation = graphql.get_operation_ast(document_node)
        if not valid or operation.operation != graphql.OperationType.MUTATION or body.get("data") is None:
            return
        writes = model_writes(self.schema, operation)
        if not writes:
            return
        # Only the last write of a document is compared: a later one may change what an earlier
        # one answered (the item itself or a list it selected).
        node, kind, model = writes[-1]
        key = node.alias.value if node.alias else node.name.value
        answered = body["data"].get(key)
        if kind == "delete":
            return
        # Errors below the field (a field the API key may not read) leave the rest to compare.
        if answered is None or (key,) in error_paths:
            self.stats["writes refused"] += 1
            for error in body.get("errors") or ():
                self.refusals[f"{kind}{model}: {error.get('errorType')}: {error.get('message', '')[:60]}"] += 1
            for error in body.get("errors") or ():
                self.refusals[f"{kind}{model}: {error.get('errorType')}: {error.get('message', '')[:60]}"] += 1
            return
        item_id = answered.get("id") if type(answered.get("id")) is str else input_id(node)
        if type(item_id) is not str or node.selection_set is None or uses_spreads(node):
            self.stats["writes without id"] += 1
            return
        get = f"query {{ {key}: get{model}(id: {json.dumps(item_id)}) {graphql.print_ast(node.selection_set)} }}"
        get_body, get_errors = self.send(graphql.parse(get), True)
        mismatches = []
        differences(answered, (get_body.get("data") or {}).get(key), (key,), error_paths | get_errors, mismatches)
        self.stats["mutations checked"] += 1
        if mismatches:
            raise Failure(
                "get answers otherwise than the mutation did:\n  "
                + "\n  ".join(mismatches)
                + f"\n--- mutation\n{graphql.print_ast(document_node)}\n--- answer\n{json.dumps(body)}"
                + f"\n--- get\n{get}\n--- answer\n{json.dumps(get_body)}"
            )


def documents(schema):
    """Whole-root documents, single-mutation documents (so that most writes get compared), and a
    share of documents with one schema violation."""
    scalars = custom_scalars()

    def keep(document):
        return document

    queries = hypothesis_graphql.queries(schema, custom_scalars=scalars, print_ast=keep)
    mutations = hypothesis_graphql.mutations(schema, custom_scalars=scalars, print_ast=keep)
    single = st.one_of(
        *(
            hypothesis_graphql.mutations(schema, fields=[name], custom_scalars=scalars, print_ast=keep)
            for name in schema.mutation_type.fields
        )
    )
    negative = st.one_of(
        hypothesis_graphql.queries(schema, custom_scalars=scalars, print_ast=keep, mode=hypothesis_graphql.Mode.NEGATIVE),
        hypothesis_graphql.mutations(schema, custom_scalars=scalars, print_ast=keep, mode=hypothesis_graphql.Mode.NEGATIVE),
    )
    unconditional = st.tuples(single, st.booleans()).map(lambda pair: without_conditions(pair[0]) if pair[1] else pair[0])
    return st.sampled_from(["query", "query", "mutation", "single", "single", "single", "negative"]).flatmap(
        lambda kind: {"query": queries, "mutation": mutations, "single": unconditional, "negative": negative}[kind]
    )


def without_conditions(document):
    """The document without the `condition` arguments of its root fields: random conditions
    almost never hold, and writes that succeed are the ones compared with `get`."""

    class Visitor(graphql.Visitor):
        def enter_argument(self, node, key, parent, path, ancestors):
            # A root field's argument has seven ancestors: the document, its definitions, the
            # operation, its selection set, the selections, the field and its arguments.
            if node.name.value == "condition" and len(ancestors) == 7:
                return self.REMOVE
            return None

    return graphql.visit(document, Visitor())


def fetch_schema(server):
    status, raw = server.post(graphql.get_introspection_query())
    if status != 200:
        sys.exit(f"schema-fuzz: introspection answered HTTP {status}: {raw[:500]!r}")
    body = json.loads(raw)
    if body.get("errors"):
        sys.exit(f"schema-fuzz: introspection answered errors: {json.dumps(body['errors'])[:500]}")
    return graphql.build_client_schema(body["data"])


def main():
    parser = argparse.ArgumentParser(description="Fuzz stratus serve from its schema.")
    parser.add_argument("--url", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--server-pid", type=int, default=None)
    parser.add_argument("--verbose", action="store_true", help="print a message of each error type answered")
    args = parser.parse_args()
    base_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"schema-fuzz: seed {base_seed} (replay with --seed {base_seed})", flush=True)

    server = Server(args.url, args.api_key, args.server_pid)
    schema = fetch_schema(server)
    fuzzer = Fuzzer(server, schema)
    strategy = documents(schema)
    deadline = time.monotonic() + args.seconds
    failure = None
    rounds = 0
    while time.monotonic() < deadline and failure is None:

        @hypothesis_seed(base_seed * 1_000_003 + rounds)
        @settings(
            max_examples=ROUND_EXAMPLES,
            deadline=None,
            database=None,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.generate, Phase.shrink],
            print_blob=False,
        )
        @given(strategy)
        def round_of_examples(document_node):
            if time.monotonic() >= deadline:
                return
            fuzzer.example(document_node)

        rounds += 1
        try:
            round_of_examples()
        except Failure as error:
            failure = error
        except Exception as error:  # hypothesis's own report of several distinct failures
            failure = error

    alive = server.alive()
    if args.verbose:
        print(f"schema-fuzz: counts: {dict(fuzzer.stats)}")
        for refusal, count in fuzzer.refusals.most_common(12):
            print(f"schema-fuzz: refused {count}: {refusal}")
        for error_type, message in fuzzer.error_examples.items():
            print(f"schema-fuzz: {error_type}: {message[:300]}")
    stats = fuzzer.stats
    print(f"schema-fuzz: error types answered: {dict(fuzzer.error_types.most_common())}")
    failures = (failure is not None) + (not alive)
    print(
        f"schema-fuzz: {stats['examples']} examples ({stats['valid']} valid, {stats['invalid']} invalid) in "
        f"{rounds} rounds, {stats['mutations checked']} mutations checked against get, {failures} failures, "
        f"server {'alive' if alive else 'DIED'}, seed {base_seed}"
    )
    if failure is not None:
        print(f"schema-fuzz: FAILED (replay with --seed {base_seed}):\n{failure}", file=sys.stderr)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
