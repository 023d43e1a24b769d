{{/* The chart's name, or nameOverride. */}}
{{- define "lm-warden.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name of the release's objects: fullnameOverride, or <release>-<name> unless the release already contains the name. */}}
{{- define "lm-warden.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "lm-warden.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Annotations as strings: a value such as `true` from --set would otherwise render as a YAML boolean, which the API server rejects. */}}
{{- define "lm-warden.annotations" -}}
{{- range $k, $v := . }}
{{ $k }}: {{ $v | toString | quote }}
{{- end -}}
{{- end -}}

{{- define "lm-warden.labels" -}}
app.kubernetes.io/name: {{ include "lm-warden.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "lm-warden.selectorLabels" -}}
app.kubernetes.io/name: {{ include "lm-warden.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "lm-warden.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "lm-warden.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "lm-warden.operatorImage" -}}
{{- printf "%s:%s" .Values.operator.image.repository (default .Chart.AppVersion .Values.operator.image.tag) -}}
{{- end -}}

{{- define "lm-warden.routerImage" -}}
{{- printf "%s:%s" .Values.router.image.repository (default .Chart.AppVersion .Values.router.image.tag) -}}
{{- end -}}

{{/* What the operator needs in a namespace it watches, and nothing more: read ModelDeployments and write
their status; manage the kinds a ModelDeployment owns (never delete them: owner references let the garbage
collector do that), except NetworkPolicies, which it removes when spec.networkPolicy.enabled turns false;
watch and delete the replica pods, which a rolling update replaces one at a time (the StatefulSet's update
strategy is OnDelete); read EndpointSlices, because Kubernetes lets it grant the router a Role only with
rights it holds itself; record events. A ClusterRole with watchNamespaces empty, else a Role in each
watched namespace. */}}
{{- define "lm-warden.operatorRules" -}}
- apiGroups: ["lmwarden.io"]
  resources: ["modeldeployments"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["lmwarden.io"]
  resources: ["modeldeployments/status"]
  verbs: ["get", "patch", "update"]
# Owner references with blockOwnerDeletion need this where OwnerReferencesPermissionEnforcement is on.
- apiGroups: ["lmwarden.io"]
  resources: ["modeldeployments/finalizers"]
  verbs: ["update"]
- apiGroups: ["apps"]
  resources: ["statefulsets", "deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: [""]
  resources: ["services", "configmaps", "serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "delete"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["", "events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}

{{/* Namespaces the monitors look in: the watched ones, or all. */}}
{{- define "lm-warden.monitoredNamespaces" -}}
{{- if .Values.operator.watchNamespaces -}}
matchNames:
  {{- toYaml .Values.operator.watchNamespaces | nindent 2 }}
{{- else -}}
any: true
{{- end -}}
{{- end -}}
