# A function written as Powertools for AWS Lambda documents it, run by awslambdaric: nothing in
# it knows the local server.
import os

from aws_lambda_powertools.event_handler import AppSyncResolver

app = AppSyncResolver()


@app.resolver(type_name="Query", field_name="weather")
def weather(city: str):
    if city == "Atlantis":
        raise ValueError("No weather for Atlantis")
    return {
        "summary": f"Sunny in {city}",
        "city": city,
        "process": os.getpid(),
        "apiKey": app.current_event.request_headers.get("x-api-key"),
    }


@app.resolver(type_name="Query", field_name="forecast")
def forecast(city: str):
    # A Direct Lambda resolver's event has `info`; an @function payload has not.
    return {"summary": f"Rain in {city}", "selection": ",".join(app.current_event.info.selection_set_list)}


@app.batch_resolver(type_name="Post", field_name="summary")
def summaries(event):
    # A batch: one event per post of the list, answered in order.
    return [f"Summary of {item.source['title']} ({len(event)} in the batch)" for item in event]


def handler(event, context):
    return app.resolve(event, context)
