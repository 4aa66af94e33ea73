# Query.weather for scripts/schema-fuzz: AppSync's Direct Lambda event on standard input, the
# field's value on standard output.
import json
import sys

city = json.load(sys.stdin)["arguments"]["city"]
print(json.dumps({"summary": "Sunny in " + city, "city": city, "degrees": len(city)}))
