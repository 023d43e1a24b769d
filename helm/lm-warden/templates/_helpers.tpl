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
