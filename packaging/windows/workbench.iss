; Inno Setup script: a per-user Windows installer for the one-folder app PyInstaller builds.
; Build on Windows after `pyinstaller packaging/workbench.spec` (from the repository root):
;   iscc /DAppVersion=0.1.0 packaging\windows\workbench.iss
; Output: dist\SequenceWorkbench-<version>-windows-x64-setup.exe. No administrator rights are
; needed (installs under %LOCALAPPDATA%\Programs); nothing is downloaded at install or run time.

#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif

[Setup]
AppId={{0EBBD698-1981-4FD6-B991-8FC028A33D7C}
AppName=Sequence Workbench
AppVersion={#AppVersion}
AppPublisher=Sequence Workbench team
DefaultDirName={autopf}\Sequence Workbench
DefaultGroupName=Sequence Workbench
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
SourceDir=..\..
OutputDir=dist
OutputBaseFilename=SequenceWorkbench-{#AppVersion}-windows-x64-setup
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
UninstallDisplayName=Sequence Workbench {#AppVersion}

[Files]
Source: "dist\SequenceWorkbench\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\Sequence Workbench"; Filename: "{app}\SequenceWorkbench.exe"
Name: "{group}\Uninstall Sequence Workbench"; Filename: "{uninstallexe}"
Name: "{autodesktop}\Sequence Workbench"; Filename: "{app}\SequenceWorkbench.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked

[Run]
Filename: "{app}\SequenceWorkbench.exe"; Description: "Start Sequence Workbench"; Flags: nowait postinstall skipifsilent
