"""Turns `sam local generate-event apigateway http-api-proxy` output (stdin) into a request of this API:
the route key of the method and path, an x-api-key placeholder the tests replace ({{API_KEY}}), a
plain JSON body or none, and no sample query, cookies or authorizer. --public makes a browser's request
of a recipient page instead: no key, HTML accepted. --operator makes an operator API request as API Gateway's
AWS_IAM authorizer passes it on: no key, the signer's identity in the authorizer context.
Usage: adapt.py [--public|--operator] [BODY] < event"""
import json
import sys

event = json.load(sys.stdin)
method, path = event["requestContext"]["http"]["method"], event["rawPath"]
args = sys.argv[1:]
public = bool(args) and args[0] == "--public"
operator = bool(args) and args[0] == "--operator"
if public or operator:
    args = args[1:]
body = args[0] if args else None
event["routeKey"] = event["requestContext"]["routeKey"] = f"{method} {path}"
event["headers"] = {"x-api-key": "{{API_KEY}}", "accept": "application/json"}
if public:
    event["headers"] = {"accept": "text/html"}
if body is not None:
    event["headers"]["content-type"] = "application/json"
for key in ("cookies", "queryStringParameters"):
    event.pop(key, None)
event["rawQueryString"] = ""
event["requestContext"].pop("authentication", None)
event["requestContext"].pop("authorizer", None)
if operator:
    event["headers"] = {"accept": "application/json"}
    event["requestContext"]["authorizer"] = {"iam": {"accessKey": "AKIAEXAMPLE", "accountId": "123456789012",
        "callerId": "AIDAEXAMPLE", "principalOrgId": "", "userArn": "arn:aws:iam::123456789012:user/operator",
        "userId": "AIDAEXAMPLE"}}
event["requestContext"]["http"]["sourceIp"] = "203.0.113.10"
event["body"] = body
event["isBase64Encoded"] = False
if body is None:
    event.pop("body")
json.dump(event, sys.stdout, indent=2)
sys.stdout.write("\n")
