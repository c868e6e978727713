{{/*
The chart name, or nameOverride. It is the app.kubernetes.io/name label of every object, which
the product documents select the controller pods with.
*/}}
{{- define "karpenter-provider-kakaocloud.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object name: fullnameOverride, else the release name when it already
contains the chart name (release karpenter-provider-kakaocloud gives karpenter-provider-kakaocloud),
else <release>-<chart>. Truncated to 47 characters so that with the longest suffix the chart
adds ("-leader-election") a name still fits 63 characters.
*/}}
{{- define "karpenter-provider-kakaocloud.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 47 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 47 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 47 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "karpenter-provider-kakaocloud.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The labels that pick the controller pods: the Deployment's selector, the Services' selectors
and the pod anti-affinity. They must never change between upgrades (a Deployment's selector
is immutable), so nothing version-dependent goes here.
*/}}
{{- define "karpenter-provider-kakaocloud.selectorLabels" -}}
app.kubernetes.io/name: {{ include "karpenter-provider-kakaocloud.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "karpenter-provider-kakaocloud.labels" -}}
helm.sh/chart: {{ include "karpenter-provider-kakaocloud.chart" . }}
{{ include "karpenter-provider-kakaocloud.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "karpenter-provider-kakaocloud.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "karpenter-provider-kakaocloud.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false: name the existing ServiceAccount the controller runs as" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "karpenter-provider-kakaocloud.webhookServiceName" -}}
{{- printf "%s-webhook" (include "karpenter-provider-kakaocloud.fullname" .) }}
{{- end }}

{{- define "karpenter-provider-kakaocloud.webhookCertSecretName" -}}
{{- printf "%s-webhook-cert" (include "karpenter-provider-kakaocloud.fullname" .) }}
{{- end }}

{{- define "karpenter-provider-kakaocloud.metricsServiceName" -}}
{{- printf "%s-metrics" (include "karpenter-provider-kakaocloud.fullname" .) }}
{{- end }}

{{/*
The controller image: <repository>:<tag>, or <repository>:<tag>@<digest> when a digest is set.
The tag stays next to the digest so that people reading the pod spec still see the version;
the runtime pulls by digest.
*/}}
{{- define "karpenter-provider-kakaocloud.image" -}}
{{- $image := .Values.controller.image }}
{{- $repository := required "controller.image.repository is required" $image.repository }}
{{- $tag := toString (default .Chart.AppVersion $image.tag) }}
{{- if $image.digest }}
{{- if not (regexMatch "^[a-z0-9]+([+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$" $image.digest) }}
{{- fail (printf "controller.image.digest %q is not an image digest such as sha256:<64 hex digits>" $image.digest) }}
{{- end }}
{{- printf "%s:%s@%s" $repository $tag $image.digest }}
{{- else }}
{{- printf "%s:%s" $repository $tag }}
{{- end }}
{{- end }}

{{/*
Whether to create a Prometheus Operator object: prints "true" or nothing. setting is the
enabled value (auto, true or false, as a boolean or a string since --set and --set-string give
either), api the group/version/kind that auto asks the cluster for.
*/}}
{{- define "karpenter-provider-kakaocloud.monitoringEnabled" -}}
{{- $setting := toString .setting }}
{{- if eq $setting "auto" }}
{{- if .root.Capabilities.APIVersions.Has .api }}true{{ end }}
{{- else if eq $setting "true" }}true
{{- else if ne $setting "false" }}
{{- fail (printf "%s must be auto, true or false, not %q" .name $setting) }}
{{- end }}
{{- end }}
