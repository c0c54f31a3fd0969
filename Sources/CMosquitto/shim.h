#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H
// mosquitto.h 2.0.x includes neither mqtt_protocol.h (MQTT 5 constants) nor <stdlib.h> (free()).
#include <stdlib.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
