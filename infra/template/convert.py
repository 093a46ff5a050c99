"""Convert the SAM template to the plain CloudFormation a deploy creates.

    python infra/template/convert.py template.yaml .aws-sam/converted.json [Name=Value ...]

CloudFormation expands the AWS::Serverless-2016-10-31 transform itself when `sam deploy` creates the
change set; this runs the same translator (samtranslator, the version the pinned SAM CLI bundles) through
its own entry point, samtranslator.translator.transform, so the linters and the IAM check read the
resources that will exist in AWS: the functions' versions, live aliases, roles, event source mappings,
permissions, the HTTP API's routes, the CodeDeploy deployment groups.

Before a deploy, `sam package` uploads each function's code and puts its S3 location in CodeUri; the
translator accepts nothing else, so local code paths are replaced the same way, with a placeholder
location per function.

It works offline. The translator asks a loader for the names and ARNs of AWS managed policies (in AWS, an
IAM ListPolicies call); this one answers from the list the translator ships for that purpose. The region
and account are fixed (us-east-1, 123456789012): they only appear inside ARNs.

The translator resolves parameters only in the few properties it expands itself (a deployment
preference's Type, for one); everything else, conditions included, stays as CloudFormation evaluates it,
and cfn-lint checks every condition's branches. Parameters without a default (AlarmEmail) get a
deploy-like value; Name=Value arguments override any.
"""

import json
import logging
import os
import sys

from samtranslator.internal.managed_policies import get_bundled_managed_policy_map
from samtranslator.model.exceptions import InvalidDocumentException
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

# Values for the parameters that have no default: a deploy must give them.
DEPLOY_LIKE = {
    "AlarmEmail": "oncall@example.com",
}


def as_packaged(template):
    """Points every function's local CodeUri at S3, as `sam package` leaves it."""
    for logical_id, resource in template.get("Resources", {}).items():
        props = resource.get("Properties") or {}
        code = props.get("CodeUri")
        if resource.get("Type") == "AWS::Serverless::Function" and isinstance(code, str) and not code.startswith("s3://"):
            props["CodeUri"] = f"s3://sam-package-placeholder/{logical_id}.zip"
    return template


class BundledPolicies:
    """The translator's managed-policy loader, answered from the map the translator ships."""

    def load(self):
        return get_bundled_managed_policy_map("aws") or {}


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    source, target, overrides = argv[1], argv[2], argv[3:]
    # The translator adds the pseudo parameters from boto3's session, which needs a region; no call to
    # AWS is made.
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    # The translator warns of feature toggles it has no configuration for, once per function; the
    # defaults are what the hosted transform uses.
    logging.getLogger("samtranslator").setLevel(logging.ERROR)
    with open(source, encoding="utf-8") as f:
        template = as_packaged(yaml_parse(f.read()))
    params = dict(DEPLOY_LIKE)
    params.update({"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws"})
    for pair in overrides:
        name, sep, value = pair.partition("=")
        if not sep:
            sys.exit(f"parameter {pair!r}: want Name=Value")
        params[name] = value
    try:
        converted = transform(template, params, BundledPolicies())
    except InvalidDocumentException as e:
        for cause in e.causes:
            print(f"{source}: {cause.message}", file=sys.stderr)
        sys.exit(1)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        json.dump(converted, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
