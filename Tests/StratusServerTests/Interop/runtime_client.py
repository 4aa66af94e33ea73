# A Lambda runtime client written against the Runtime API alone (no awslambdaric): it polls
# $AWS_LAMBDA_RUNTIME_API for invocations and answers each by the event's `mode` argument.
import json, os, sys, time, urllib.error, urllib.request

api = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime"


def post(path, body, headers=None):
    request = urllib.request.Request(api + path, data=json.dumps(body).encode(), method="POST")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    urllib.request.urlopen(request).read()


while True:
    try:
        response = urllib.request.urlopen(api + "/invocation/next")
    except (urllib.error.URLError, ConnectionError):
        sys.exit(0)
    request_id = response.headers["Lambda-Runtime-Aws-Request-Id"]
    event = json.loads(response.read())
    mode = event["arguments"].get("mode", "answer")
    if mode == "fail":
        post(f"/invocation/{request_id}/error", {"errorMessage": "It failed on purpose", "errorType": "Purpose"},
             {"Lambda-Runtime-Function-Error-Type": "Unhandled"})
        continue
    if mode == "crash":
        os._exit(3)
    if mode == "hang":
        time.sleep(60)
    if mode == "meet":
        # Waits (10 seconds at most) until another invocation, in another process, is here too.
        place = event["arguments"]["place"]
        open(os.path.join(place, str(os.getpid())), "w").close()
        for _ in range(1000):
            if len(os.listdir(place)) >= 2:
                break
            time.sleep(0.01)
    post(f"/invocation/{request_id}/response", {
        "pid": os.getpid(),
        "requestId": request_id,
        "deadlineMs": int(response.headers["Lambda-Runtime-Deadline-Ms"]),
        "functionArn": response.headers["Lambda-Runtime-Invoked-Function-Arn"],
        "function": os.environ["AWS_LAMBDA_FUNCTION_NAME"],
        "field": event["info"]["parentTypeName"] + "." + event["info"]["fieldName"],
    })
