"""Runs the AWS SAM transform on a template once for each set of parameter values given and
prints the resulting CloudFormation templates as a JSON array, for
test/infra/samTransform.test.ts. The template comes with its Fn::ForEach loops already expanded
(test/support/samTransform.ts, by local/template.ts).

It uses aws-sam-translator, the library that CloudFormation's AWS::Serverless-2016-10-31
transform and the SAM CLI are built on. Before it, it does what AWS::LanguageExtensions does for
this template: resolve intrinsic DeletionPolicy / UpdateReplacePolicy values on the stage's
conditions. Local CodeUri folders become s3:// locations, as `sam deploy` packaging does.

usage: python3 samTransform.py TEMPLATE '[{"Stage": "staging", ...}, ...]'
exit 3: aws-sam-translator is not installed (the test then says so and is skipped).
"""

import json
import sys

try:
    from samtranslator.translator.transform import transform
    from samtranslator.yaml_helper import yaml_parse
except ImportError:
    sys.stderr.write("aws-sam-translator is not installed\n")
    sys.exit(3)


class NoManagedPolicies:
    """The template names no managed policy; looking one up would need AWS."""

    def load(self):
        return {}


def evaluate(node, parameters, conditions):
    if isinstance(node, dict) and len(node) == 1:
        (name, value), = node.items()
        if name == "Ref":
            return parameters[value]
        if name == "Condition":
            return evaluate(conditions[value], parameters, conditions)
        if name == "Fn::Equals":
            left, right = (evaluate(v, parameters, conditions) for v in value)
            return left == right
        if name == "Fn::Join":
            separator, items = value
            return separator.join(evaluate(items, parameters, conditions))
        if name == "Fn::Not":
            return not evaluate(value[0], parameters, conditions)
        if name == "Fn::And":
            return all(evaluate(v, parameters, conditions) for v in value)
        if name == "Fn::Or":
            return any(evaluate(v, parameters, conditions) for v in value)
        if name == "Fn::If":
            branch = value[1] if evaluate(conditions[value[0]], parameters, conditions) else value[2]
            return evaluate(branch, parameters, conditions)
        raise ValueError("cannot evaluate %s here" % name)
    return node


def transform_once(source, given):
    template = yaml_parse(source)
    # CloudFormation hands a transform each parameter's value with its type applied: a
    # CommaDelimitedList as a list of strings.
    values = {}
    for name, spec in template.get("Parameters", {}).items():
        value = given.get(name, spec.get("Default"))
        if value is not None:
            values[name] = value.split(",") if spec["Type"] == "CommaDelimitedList" else value
    conditions = template.get("Conditions", {})

    transforms = template.get("Transform")
    transforms = transforms if isinstance(transforms, list) else [transforms]
    if "AWS::LanguageExtensions" in transforms:
        for resource in template["Resources"].values():
            for attribute in ("DeletionPolicy", "UpdateReplacePolicy"):
                if isinstance(resource.get(attribute), dict):
                    resource[attribute] = evaluate(resource[attribute], values, conditions)
    template["Transform"] = [t for t in transforms if t != "AWS::LanguageExtensions"][0]

    for logical_id, resource in template["Resources"].items():
        if resource["Type"] == "AWS::Serverless::Function":
            code_uri = resource["Properties"]["CodeUri"]
            resource["Properties"]["CodeUri"] = "s3://packaged/%s/%s.zip" % (logical_id, code_uri)

    return transform(template, values, NoManagedPolicies())


def main():
    template_path, parameter_sets = sys.argv[1], json.loads(sys.argv[2])
    with open(template_path, encoding="utf-8") as handle:
        source = handle.read()
    outputs = [transform_once(source, parameters) for parameters in parameter_sets]
    json.dump(outputs, sys.stdout, indent=1, sort_keys=True, default=str)


if __name__ == "__main__":
    main()
