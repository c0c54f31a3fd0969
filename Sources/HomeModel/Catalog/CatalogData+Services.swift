// The service types of the catalog, as data. Columns, separated by one tab: short type, CamelCase name,
// required characteristics, optional characteristics (comma-separated characteristic names of the catalog).
//
// Sources (facts, not code): HAP-python 5.0 `pyhap/resources/services.json` (Apache-2.0 data), plus from
// HAP-NodeJS `src/lib/definitions/ServiceDefinitions.ts`: HAPProtocolInformation (A2), ColorTemperature
// for Lightbulb, Mute for Doorbell, and Speaker (113) merged with HAP-python's TelevisionSpeaker, which
// shares its type.

extension HAPCatalog {
    static let serviceTable = """
        3E	AccessoryInformation	Identify,Manufacturer,Model,Name,SerialNumber,FirmwareRevision	HardwareRevision,AccessoryFlags,HardwareFinish
        40	Fan	On	RotationDirection,RotationSpeed,Name
        41	GarageDoorOpener	CurrentDoorState,TargetDoorState,ObstructionDetected	LockCurrentState,LockTargetState,Name
        43	Lightbulb	On	Brightness,Hue,Saturation,ColorTemperature,Name,ActiveTransitionCount,TransitionControl,SupportedTransitionConfiguration
        44	LockManagement	LockControlPoint,Version	Logs,AudioFeedback,LockManagementAutoSecurityTimeout,AdministratorOnlyAccess,LockLastKnownAction,CurrentDoorState,MotionDetected,Name
        45	LockMechanism	LockCurrentState,LockTargetState	Name
        47	Outlet	On,OutletInUse	Name
        49	Switch	On	Name
        4A	Thermostat	CurrentHeatingCoolingState,TargetHeatingCoolingState,CurrentTemperature,TargetTemperature,TemperatureDisplayUnits	CurrentRelativeHumidity,TargetRelativeHumidity,CoolingThresholdTemperature,HeatingThresholdTemperature,Name
        7E	SecuritySystem	SecuritySystemCurrentState,SecuritySystemTargetState	StatusFault,StatusTampered,SecuritySystemAlarmType,Name
        7F	CarbonMonoxideSensor	CarbonMonoxideDetected	StatusActive,StatusFault,StatusLowBattery,StatusTampered,CarbonMonoxideLevel,CarbonMonoxidePeakLevel,Name
        80	ContactSensor	ContactSensorState	StatusActive,StatusFault,StatusTampered,StatusLowBattery,Name
        81	Door	CurrentPosition,PositionState,TargetPosition	HoldPosition,ObstructionDetected,Name
        82	HumiditySensor	CurrentRelativeHumidity	StatusActive,StatusFault,StatusTampered,StatusLowBattery,Name
        83	LeakSensor	LeakDetected	StatusActive,StatusFault,StatusTampered,StatusLowBattery,Name
        84	LightSensor	CurrentAmbientLightLevel	Name,StatusActive,StatusFault,StatusTampered,StatusLowBattery
        85	MotionSensor	MotionDetected	StatusActive,StatusFault,StatusTampered,StatusLowBattery,Name
        86	OccupancySensor	OccupancyDetected	Name,StatusActive,StatusFault,StatusTampered,StatusLowBattery
        87	SmokeSensor	SmokeDetected	StatusActive,StatusFault,StatusTampered,StatusLowBattery,Name
        89	StatelessProgrammableSwitch	ProgrammableSwitchEvent	Name,ServiceLabelIndex
        8A	TemperatureSensor	CurrentTemperature	StatusActive,StatusFault,StatusLowBattery,StatusTampered,Name
        8B	Window	CurrentPosition,TargetPosition,PositionState	HoldPosition,ObstructionDetected,Name
        8C	WindowCovering	CurrentPosition,TargetPosition,PositionState	HoldPosition,TargetHorizontalTiltAngle,TargetVerticalTiltAngle,CurrentHorizontalTiltAngle,CurrentVerticalTiltAngle,ObstructionDetected,Name
        8D	AirQualitySensor	AirQuality	StatusActive,StatusFault,StatusTampered,StatusLowBattery,Name,OzoneDensity,NitrogenDioxideDensity,SulphurDioxideDensity,PM2.5Density,PM10Density,VOCDensity,CarbonMonoxideLevel,CarbonDioxideLevel
        96	BatteryService	BatteryLevel,ChargingState,StatusLowBattery	Name
        97	CarbonDioxideSensor	CarbonDioxideDetected	StatusActive,StatusFault,StatusLowBattery,StatusTampered,CarbonDioxideLevel,CarbonDioxidePeakLevel,Name
        A2	HAPProtocolInformation	Version
        B7	Fanv2	Active	CurrentFanState,TargetFanState,LockPhysicalControls,Name,RotationDirection,RotationSpeed,SwingMode
        B9	Slat	SlatType,CurrentSlatState	Name,CurrentTiltAngle,TargetTiltAngle,SwingMode
        BA	FilterMaintenance	FilterChangeIndication	FilterLifeLevel,ResetFilterIndication,Name
        BB	AirPurifier	Active,CurrentAirPurifierState,TargetAirPurifierState	LockPhysicalControls,Name,SwingMode,RotationSpeed
        BC	HeaterCooler	Active,CurrentHeaterCoolerState,TargetHeaterCoolerState,CurrentTemperature	LockPhysicalControls,Name,SwingMode,CoolingThresholdTemperature,HeatingThresholdTemperature,TemperatureDisplayUnits,RotationSpeed
        BD	HumidifierDehumidifier	CurrentRelativeHumidity,CurrentHumidifierDehumidifierState,TargetHumidifierDehumidifierState,Active	LockPhysicalControls,Name,SwingMode,WaterLevel,RelativeHumidityDehumidifierThreshold,RelativeHumidityHumidifierThreshold,RotationSpeed
        CC	ServiceLabel	ServiceLabelNamespace	Name
        CF	IrrigationSystem	Active,ProgramMode,InUse	Name,RemainingDuration,StatusFault
        D0	Valve	Active,InUse,ValveType	SetDuration,RemainingDuration,IsConfigured,ServiceLabelIndex,StatusFault,Name
        D7	Faucet	Active	Name,StatusFault
        D8	Television	Active,ActiveIdentifier,ConfiguredName,SleepDiscoveryMode	Brightness,ClosedCaptions,DisplayOrder,CurrentMediaState,TargetMediaState,PictureMode,PowerModeSelection,RemoteKey
        D9	InputSource	ConfiguredName,InputSourceType,IsConfigured,CurrentVisibilityState	Identifier,InputDeviceType,TargetVisibilityState,Name
        110	CameraRTPStreamManagement	SupportedVideoStreamConfiguration,SupportedAudioStreamConfiguration,SupportedRTPConfiguration,SelectedRTPStreamConfiguration,StreamingStatus,SetupEndpoints	Name
        112	Microphone	Volume,Mute	Name
        113	Speaker	Mute	Name,Volume,Active,VolumeControlType,VolumeSelector
        121	Doorbell	ProgrammableSwitchEvent	Brightness,Mute,Volume,Name
        266	NFCAccess	ConfigurationState,NFCAccessControlPoint,NFCAccessSupportedConfiguration
        """
}
