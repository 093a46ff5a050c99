"""Turns `sam local generate-event apigateway http-api-proxy` output (stdin) into a request of this API:
the route key of the method and path, an x-api-key placeholder the tests replace ({{API_KEY}}), a
plain JSON body or none, and no sample query, cookies or authorizer. Usage: adapt.py [BODY] < event"""
import json
import sys

event = json.load(sys.stdin)
method, path = event["requestContext"]["http"]["method"], event["rawPath"]
body = sys.argv[1] if len(sys.argv) > 1 else None
event["routeKey"] = event["requestContext"]["routeKey"] = f"{method} {path}"
event["headers"] = {"x-api-key": "{{API_KEY}}", "accept": "application/json"}
if body is not None:
    event["headers"]["content-type"] = "application/json"
for key in ("cookies", "queryStringParameters"):
    event.pop(key, None)
event["rawQueryString"] = ""
event["requestContext"].pop("authentication", None)
event["requestContext"].pop("authorizer", None)
event["requestContext"]["http"]["sourceIp"] = "203.0.113.10"
event["body"] = body
event["isBase64Encoded"] = False
if body is None:
    event.pop("body")
json.dump(event, sys.stdout, indent=2)
sys.stdout.write("\n")
