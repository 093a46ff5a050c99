"""Converts template.yaml to plain CloudFormation as `sam deploy` has it converted.

    python infra/iamcheck/convert.py template.yaml .aws-sam/converted.json

It runs the SAM translator (PyPI aws-sam-translator, the version the pinned SAM CLI depends on) with
the template's parameter defaults in us-east-1, as CloudFormation's AWS::Serverless transform does:
policy templates (SQSSendMessagePolicy) and event sources expand into the functions' roles, and
conditions and intrinsic functions stay for CloudFormation (infra/iamcheck resolves them per
scenario). The functions' local CodeUri becomes an S3 location, as `sam package` makes it. Managed
policy names resolve through the translator's bundled list, so nothing calls AWS.
"""

import json
import logging
import sys

import boto3
from samtranslator.internal.managed_policies import get_bundled_managed_policy_map
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator
from samtranslator.yaml_helper import yaml_parse


def main(src: str, dst: str) -> None:
    # The translator warns about feature toggles it has no configuration for; that is every run.
    logging.basicConfig(level=logging.ERROR)
    with open(src, encoding="utf-8") as f:
        template = yaml_parse(f.read())
    for name, resource in template.get("Resources", {}).items():
        if resource.get("Type") == "AWS::Serverless::Function":
            resource["Properties"]["CodeUri"] = f"s3://sam-package/{name}"
    translator = Translator(None, Parser(), boto_session=boto3.session.Session(region_name="us-east-1"))
    converted = translator.translate(
        template, parameter_values={}, get_managed_policy_map=lambda: get_bundled_managed_policy_map("aws")
    )
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(converted, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: convert.py TEMPLATE OUTPUT")
    main(sys.argv[1], sys.argv[2])
