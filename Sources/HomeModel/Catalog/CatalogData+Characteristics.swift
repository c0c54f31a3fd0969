// The characteristic types of the catalog, as data. Columns, separated by one tab:
//   short type, CamelCase name, format, permissions, constraints (`unit= minValue= maxValue= minStep= maxLen=`),
//   valid values (`valid=Name:int,...`; a name may itself hold commas, so each pair ends at its last colon).
// Trailing empty columns are left out.
//
// Sources (facts, not code): the first 149 rows are every entry of HAP-python 5.0
// `pyhap/resources/characteristics.json` (github.com/ikalchev/HAP-python, Apache-2.0 data; names and
// valid-value names kept as HAP-python spells them, except eleven valid-value names where HAP-python runs
// words together, given capitals so that they split into words: `HumidifierorDehumidifier` is
// `HumidifierOrDehumidifier`, also `GenericValve`, `WaterFaucet`, `InUse`, `NotInUse`,
// `NoProgramScheduled`, `ProgramScheduled`, `SecuredBy…` and `UnsecuredByKeypad`; a `/set` by name
// matches either spelling; docs/hap-notes.md §6). The last five rows (54, 57, 74,
// 126, 220) are types controllers meet that HAP-python lacks, from HAP-NodeJS
// `src/lib/definitions/CharacteristicDefinitions.ts` (github.com/homebridge/HAP-NodeJS, Apache-2.0).

extension HAPCatalog {
    static let characteristicTable = """
        1	AdministratorOnlyAccess	bool	pr,pw,ev
        5	AudioFeedback	bool	pr,pw,ev
        8	Brightness	int	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        D	CoolingThresholdTemperature	float	pr,pw,ev	unit=celsius minValue=10 maxValue=35 minStep=0.1
        E	CurrentDoorState	uint8	pr,ev		valid=Closed:1,Closing:3,Open:0,Opening:2,Stopped:4
        F	CurrentHeatingCoolingState	uint8	pr,ev		valid=Cool:2,Heat:1,Off:0
        10	CurrentRelativeHumidity	float	pr,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        11	CurrentTemperature	float	pr,ev	unit=celsius minValue=-273.1 maxValue=1000 minStep=0.1
        12	HeatingThresholdTemperature	float	pr,pw,ev	unit=celsius minValue=0 maxValue=25 minStep=0.1
        13	Hue	float	pr,pw,ev	unit=arcdegrees minValue=0 maxValue=360 minStep=1
        14	Identify	bool	pw
        19	LockControlPoint	tlv8	pw
        1A	LockManagementAutoSecurityTimeout	uint32	pr,pw,ev	unit=seconds
        1C	LockLastKnownAction	uint8	pr,ev		valid=SecuredPhysically,Exterior:2,SecuredPhysically,Interior:0,SecuredRemotely:6,SecuredByAutoSecureTimeout:8,SecuredByKeypad:4,UnsecuredPhysically,Exterior:3,UnsecuredPhysically,Interior:1,UnsecuredRemotely:7,UnsecuredByKeypad:5
        1D	LockCurrentState	uint8	pr,ev		valid=Jammed:2,Secured:1,Unknown:3,Unsecured:0
        1E	LockTargetState	uint8	pr,pw,ev		valid=Secured:1,Unsecured:0
        1F	Logs	tlv8	pr,ev
        20	Manufacturer	string	pr
        21	Model	string	pr
        22	MotionDetected	bool	pr,ev
        23	Name	string	pr
        24	ObstructionDetected	bool	pr,ev
        25	On	bool	pr,pw,ev
        26	OutletInUse	bool	pr,ev
        28	RotationDirection	int	pr,pw,ev		valid=Clockwise:0,Counter-clockwise:1
        29	RotationSpeed	float	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        2F	Saturation	float	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        30	SerialNumber	string	pr
        32	TargetDoorState	uint8	pr,pw,ev		valid=Closed:1,Open:0
        33	TargetHeatingCoolingState	uint8	pr,pw,ev		valid=Auto:3,Cool:2,Heat:1,Off:0
        34	TargetRelativeHumidity	float	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        35	TargetTemperature	float	pr,pw,ev	unit=celsius minValue=10 maxValue=38 minStep=0.1
        36	TemperatureDisplayUnits	uint8	pr,pw,ev		valid=Celsius:0,Fahrenheit:1
        37	Version	string	pr,ev
        4C	PairSetup	tlv8	pr,pw
        4E	PairVerify	tlv8	pr,pw
        4F	PairingFeatures	uint8	pr
        50	PairingPairings	tlv8	pr,pw
        52	FirmwareRevision	string	pr
        53	HardwareRevision	string	pr
        64	AirParticulateDensity	float	pr,ev	minValue=0 maxValue=1000 minStep=1
        65	AirParticulateSize	uint8	pr,ev		valid=10μm:1,2.5μm:0
        66	SecuritySystemCurrentState	uint8	pr,ev		valid=AlarmTriggered:4,AwayArm:1,Disarmed:3,NightArm:2,StayArm:0
        67	SecuritySystemTargetState	uint8	pr,pw,ev		valid=AwayArm:1,Disarm:3,NightArm:2,StayArm:0
        68	BatteryLevel	uint8	pr,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        69	CarbonMonoxideDetected	uint8	pr,ev		valid=COLevelsAbnormal:1,COLevelsNormal:0
        6A	ContactSensorState	uint8	pr,ev		valid=ContactDetected:0,ContactNotDetected:1
        6B	CurrentAmbientLightLevel	float	pr,ev	unit=lux minValue=0.0001 maxValue=100000
        6C	CurrentHorizontalTiltAngle	int	pr,ev	unit=arcdegrees minValue=-90 maxValue=90 minStep=1
        6D	CurrentPosition	uint8	pr,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        6E	CurrentVerticalTiltAngle	int	pr,ev	unit=arcdegrees minValue=-90 maxValue=90 minStep=1
        6F	HoldPosition	bool	pw
        70	LeakDetected	uint8	pr,ev		valid=LeakDetected:1,LeakNotDetected:0
        71	OccupancyDetected	uint8	pr,ev		valid=OccupancyDetected:1,OccupancyNotDetected:0
        72	PositionState	uint8	pr,ev		valid=Decreasing:0,Increasing:1,Stopped:2
        73	ProgrammableSwitchEvent	uint8	pr,ev		valid=DoublePress:1,LongPress:2,SinglePress:0
        75	StatusActive	bool	pr,ev
        76	SmokeDetected	uint8	pr,ev		valid=SmokeDetected:1,SmokeNotDetected:0
        77	StatusFault	uint8	pr,ev		valid=GeneralFault:1,NoFault:0
        78	StatusJammed	uint8	pr,ev		valid=Jammed:1,NotJammed:0
        79	StatusLowBattery	uint8	pr,ev		valid=BatteryLevelLow:1,BatteryLevelNormal:0
        7A	StatusTampered	uint8	pr,ev		valid=NotTampered:0,Tampered:1
        7B	TargetHorizontalTiltAngle	int	pr,pw,ev	unit=arcdegrees minValue=-90 maxValue=90 minStep=1
        7C	TargetPosition	uint8	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        7D	TargetVerticalTiltAngle	int	pr,pw,ev	unit=arcdegrees minValue=-90 maxValue=90 minStep=1
        8E	SecuritySystemAlarmType	uint8	pr,ev	minValue=0 maxValue=1 minStep=1
        8F	ChargingState	uint8	pr,ev		valid=Charging:1,NotChargeable:2,NotCharging:0
        90	CarbonMonoxideLevel	float	pr,ev	minValue=0 maxValue=100
        91	CarbonMonoxidePeakLevel	float	pr,ev	minValue=0 maxValue=100
        92	CarbonDioxideDetected	uint8	pr,ev		valid=CO2LevelsAbnormal:1,CO2LevelsNormal:0
        93	CarbonDioxideLevel	float	pr,ev	minValue=0 maxValue=100000
        94	CarbonDioxidePeakLevel	float	pr,ev	minValue=0 maxValue=100000
        95	AirQuality	uint8	pr,ev		valid=Excellent:1,Fair:3,Good:2,Inferior:4,Poor:5,Unknown:0
        A6	AccessoryFlags	uint32	pr,ev
        A7	LockPhysicalControls	uint8	pr,pw,ev		valid=ControlLockDisabled:0,ControlLockEnabled:1
        A8	TargetAirPurifierState	uint8	pr,pw,ev		valid=Auto:1,Manual:0
        A9	CurrentAirPurifierState	uint8	pr,ev		valid=Idle:1,Inactive:0,PurifyingAir:2
        AA	CurrentSlatState	uint8	pr,ev		valid=Fixed:0,Jammed:1,Swinging:2
        AB	FilterLifeLevel	float	pr,ev	minValue=0 maxValue=100
        AC	FilterChangeIndication	uint8	pr,ev		valid=ChangeFilter:1,FilterOK:0
        AD	ResetFilterIndication	uint8	pw	minValue=1 maxValue=1 minStep=1
        AE	TargetAirQuality	uint8	pr,pw,ev		valid=Excellent:0,Fair:2,Good:1
        AF	CurrentFanState	uint8	pr,ev		valid=BlowingAir:2,Idle:1,Inactive:0
        B0	Active	uint8	pr,pw,ev		valid=Active:1,Inactive:0
        B1	CurrentHeaterCoolerState	uint8	pr,ev		valid=Cooling:3,Heating:2,Idle:1,Inactive:0
        B2	TargetHeaterCoolerState	uint8	pr,pw,ev		valid=Auto:0,Cool:2,Heat:1
        B3	CurrentHumidifierDehumidifierState	uint8	pr,ev		valid=Dehumidifying:3,Humidifying:2,Idle:1,Inactive:0
        B4	TargetHumidifierDehumidifierState	uint8	pr,pw,ev		valid=Dehumidifier:2,Humidifier:1,HumidifierOrDehumidifier:0
        B5	WaterLevel	float	pr,ev	unit=percentage minValue=0 maxValue=100
        B6	SwingMode	uint8	pr,pw,ev		valid=SwingDisabled:0,SwingEnabled:1
        BE	TargetSlatState	uint8	pr,pw,ev		valid=Auto:1,Manual:0
        BF	TargetFanState	uint8	pr,pw,ev		valid=Auto:1,Manual:0
        C0	SlatType	uint8	pr		valid=Horizontal:0,Vertical:1
        C1	CurrentTiltAngle	int	pr,ev	unit=arcdegrees minValue=-90 maxValue=90 minStep=1
        C2	TargetTiltAngle	int	pr,pw,ev	unit=arcdegrees minValue=-90 maxValue=90 minStep=1
        C3	OzoneDensity	float	pr,ev	minValue=0 maxValue=1000 minStep=1
        C4	NitrogenDioxideDensity	float	pr,ev	minValue=0 maxValue=1000 minStep=1
        C5	SulphurDioxideDensity	float	pr,ev	minValue=0 maxValue=1000 minStep=1
        C6	PM2.5Density	float	pr,ev	minValue=0 maxValue=1000 minStep=1
        C7	PM10Density	float	pr,ev	minValue=0 maxValue=1000 minStep=1
        C8	VOCDensity	float	pr,ev	minValue=0 maxValue=1000 minStep=1
        C9	RelativeHumidityDehumidifierThreshold	float	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        CA	RelativeHumidityHumidifierThreshold	float	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        CB	ServiceLabelIndex	uint8	pr	minValue=1 maxValue=255 minStep=1
        CD	ServiceLabelNamespace	uint8	pr		valid=ArabicNumerals:1,Dots:0
        CE	ColorTemperature	uint32	pr,pw,ev	minValue=140 maxValue=500 minStep=1
        D1	ProgramMode	uint8	pr,ev		valid=NoProgramScheduled:0,ProgramScheduled:1,ProgramScheduled(ManualMode):2
        D2	InUse	uint8	pr,ev		valid=InUse:1,NotInUse:0
        D3	SetDuration	uint32	pr,pw,ev	minValue=0 maxValue=3600 minStep=1
        D4	RemainingDuration	uint32	pr,ev	minValue=0 maxValue=3600 minStep=1
        D5	ValveType	uint8	pr,ev		valid=GenericValve:0,Irrigation:1,Showerhead:2,WaterFaucet:3
        D6	IsConfigured	uint8	pr,pw,ev		valid=Configured:1,NotConfigured:0
        DB	InputSourceType	uint8	pr,ev		valid=Other:0,HomeScreen:1,Tuner:2,HDMI:3,CompositeVideo:4,SVideo:5,ComponentVideo:6,DVI:7,AirPlay:8,USB:9,Application:10
        DC	InputDeviceType	uint8	pr,ev		valid=Other:0,TV:1,Recording:2,Tuner:3,Playback:4,AudioSystem:5
        DD	ClosedCaptions	uint8	pr,pw,ev		valid=Disabled:0,Enabled:1
        DF	PowerModeSelection	uint8	pw		valid=Show:0,Hide:1
        E0	CurrentMediaState	uint8	pr,ev		valid=Play:0,Pause:1,Stop:2,Unknown:3
        E1	RemoteKey	uint8	pw	minValue=0 maxValue=16	valid=Rewind:0,FastForward:1,NextTrack:2,PreviousTrack:3,ArrowUp:4,ArrowDown:5,ArrowLeft:6,ArrowRight:7,Select:8,Back:9,Exit:10,PlayPause:11,Information:15
        E2	PictureMode	uint8	pr,pw,ev	minValue=0 maxValue=13	valid=Other:0,Standard:1,Calibrated:2,CalibratedDark:3,Vivid:4,Game:5,Computer:6,Custom:7
        E3	ConfiguredName	string	pr,pw,ev
        E6	Identifier	uint32	pr	minValue=0 minStep=1
        E7	ActiveIdentifier	uint32	pr,pw,ev
        E8	SleepDiscoveryMode	uint8	pr,ev		valid=NotDiscoverable:0,AlwaysDiscoverable:1
        E9	VolumeControlType	uint8	pr,ev		valid=None:0,Relative:1,RelativeWithCurrent:2,Absolute:3
        EA	VolumeSelector	uint8	pw		valid=Increment:0,Decrement:1
        114	SupportedVideoStreamConfiguration	tlv8	pr
        115	SupportedAudioStreamConfiguration	tlv8	pr
        116	SupportedRTPConfiguration	tlv8	pr
        117	SelectedRTPStreamConfiguration	tlv8	pr,pw
        118	SetupEndpoints	tlv8	pr,pw
        119	Volume	uint8	pr,pw,ev	unit=percentage minValue=0 maxValue=100 minStep=1
        11A	Mute	bool	pr,pw,ev
        11B	NightVision	bool	pr,pw,ev
        11C	OpticalZoom	float	pr,pw,ev
        11D	DigitalZoom	float	pr,pw,ev
        11E	ImageRotation	float	pr,pw,ev	unit=arcdegrees minValue=0 maxValue=270 minStep=90
        11F	ImageMirroring	bool	pr,pw,ev
        120	StreamingStatus	tlv8	pr,ev
        134	TargetVisibilityState	uint8	pr,pw,ev		valid=Shown:0,Hidden:1
        135	CurrentVisibilityState	uint8	pr,ev		valid=Shown:0,Hidden:1,State2:2,State3:3
        136	DisplayOrder	tlv8	pr,pw,ev
        137	TargetMediaState	uint8	pr,pw,ev		valid=Play:0,Pause:1,Stop:2
        143	TransitionControl	tlv8	pr,pw,wr
        144	SupportedTransitionConfiguration	tlv8	pr
        24B	ActiveTransitionCount	uint8	pr,ev
        263	ConfigurationState	uint16	pr,ev
        264	NFCAccessControlPoint	tlv8	pr,pw,wr
        265	NFCAccessSupportedConfiguration	tlv8	pr
        26C	HardwareFinish	tlv8	pr
        54	SoftwareRevision	string	pr
        57	AccessoryIdentifier	string	pr
        74	ProgrammableSwitchOutputState	uint8	pr,pw,ev	minValue=0 maxValue=1 minStep=1
        126	ButtonEvent	tlv8	pr,ev
        220	ProductData	data	pr
        """
}
